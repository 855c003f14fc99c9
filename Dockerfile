# The hub image: one image, four roles (migrate, ingress, worker, the CLI) chosen by the
# subcommand given to bin/hub. It runs the production build (`npm run build`: the apps and libs
# compiled by swc under dist/), so no process compiles TypeScript when it starts.
FROM node:24-bookworm-slim

# openssl: Prisma's schema engine (migrate deploy) links against it.
RUN apt-get update \
  && apt-get install -y --no-install-recommends openssl ca-certificates \
  && rm -rf /var/lib/apt/lists/*

WORKDIR /app
RUN chown node:node /app
USER node

# npm install runs the postinstall (tools/scripts/prisma-generate.mjs), which needs the Prisma schema
# and config; copying only these first keeps the dependency layer cached across code changes.
# devDependencies stay: the prisma CLI is one, and `hub migrate` needs it.
COPY --chown=node:node package.json package-lock.json .npmrc prisma.config.ts ./
COPY --chown=node:node prisma ./prisma
COPY --chown=node:node tools/scripts ./tools/scripts
RUN npm install --no-audit --no-fund

COPY --chown=node:node . .
RUN npm run build

ENV NODE_ENV=production HUB_RUN_FROM=dist
ENTRYPOINT ["/app/bin/hub"]
CMD ["--help"]

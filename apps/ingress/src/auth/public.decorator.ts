import { SetMetadata } from '@nestjs/common';

export const IS_PUBLIC = 'hub:isPublic';
/** Marks a route that needs no API key (only `/health`). */
export const Public = () => SetMetadata(IS_PUBLIC, true);

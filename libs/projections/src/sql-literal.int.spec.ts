import { Client } from 'pg';
import { connectToServer } from '@hub/testing';
import { sqlLiteral } from './sql-literal';

let client: Client;
beforeAll(async () => {
  client = await connectToServer();
});
afterAll(() => client.end());

describe('sqlLiteral', () => {
  it.each([
    '',
    'plain',
    "it's",
    'back\\slash and \\n',
    '$hub$ inside, and $hub1$ too',
    '$',
    'ends with $hub',
    JSON.stringify([{ text: 'He said "hi"\n\tand left\\', emoji: '🙂', quote: "O'Brien", dollars: '$$ $hub$' }]),
  ])('reads back %j as the same text in Postgres', async (text) => {
    const { rows } = await client.query<{ v: string; same: boolean }>(`SELECT ${sqlLiteral(text)} AS v, ${sqlLiteral(text)} = $1 AS same`, [text]);
    expect(rows[0]).toEqual({ v: text, same: true });
  });
});

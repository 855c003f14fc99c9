import { connectionProblem } from './connection-budget';

describe('connectionProblem', () => {
  const uses = [
    { what: 'in the main pool (HUB_DB_POOL_SIZE)', connections: 10 },
    { what: 'for projections', connections: 5 },
  ];

  it('lets a process start when what it may open fits in what the server has left', () => {
    expect(connectionProblem('worker', uses, { max: 100, reserved: 3, inUse: 82 })).toBeNull();
  });

  it('refuses one that may not, naming the sum, its parts, the room and the way out', () => {
    const problem = connectionProblem('worker', uses, { max: 100, reserved: 3, inUse: 83 });
    expect(problem).toBe(
      'this worker may open 15 Postgres connections (10 in the main pool (HUB_DB_POOL_SIZE) + 5 for projections), but the server has room for 14 ' +
        '(max_connections 100 - 3 reserved - 83 in use); lower HUB_DB_POOL_SIZE, run fewer processes per database, or raise max_connections (docs/connections.md)',
    );
  });
});

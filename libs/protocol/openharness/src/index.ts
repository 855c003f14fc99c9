export * from './schema';
export * from './errors';
export * from './continuation';
export * from './capabilities';
export * from './privacy';
export * from './decode';
export * from './encode';

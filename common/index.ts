export * from './ids';
export * from './envelope';
export * from './study';
export * from './survey';
export * from './session';
export * from './events';
export * from './http';
export * from './trajectory';

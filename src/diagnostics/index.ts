export * from './diagnostic.js';
export * from './render.js';

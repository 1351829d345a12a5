export * from './v03.js';

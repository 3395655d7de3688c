/**
 * `Promise.withResolvers` (ES2024, Node >= 22) for Node 20: the Restate SDK
 * calls it. Installed only where it is missing, before the SDK loads (every
 * file of this package that imports the SDK imports this file first). It is
 * the specification's algorithm: a new promise of `this` and its two functions.
 */
interface Resolvers<T> {
  promise: Promise<T>;
  resolve: (value: T | PromiseLike<T>) => void;
  reject: (reason?: unknown) => void;
}

type WithResolvers = <T>(this: PromiseConstructor) => Resolvers<T>;

const promiseConstructor = Promise as PromiseConstructor & { withResolvers?: WithResolvers };

/** True when this process needed the polyfill (Node < 22). */
export const polyfilledWithResolvers: boolean = typeof promiseConstructor.withResolvers !== 'function';

if (polyfilledWithResolvers) {
  const withResolvers: WithResolvers = function <T>(this: PromiseConstructor): Resolvers<T> {
    let resolve!: Resolvers<T>['resolve'];
    let reject!: Resolvers<T>['reject'];
    const promise = new this<T>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    return { promise, resolve, reject };
  };
  Object.defineProperty(Promise, 'withResolvers', {
    value: withResolvers,
    writable: true,
    configurable: true,
    enumerable: false,
  });
}

/**
 * `FromSchema<typeof SCHEMA>`: the TypeScript type of the data a JSON Schema
 * written as a `const` object accepts, so a config's schema is its one source
 * (the type follows when a key is added). Covers the keywords module configs
 * and core's data use: `type` (one or a list), `properties` + `required`,
 * `additionalProperties`, `items`, `enum`, `const`, `anyOf`, `oneOf`, `allOf`
 * (intersected). Value keywords (`minimum`, `pattern`...) narrow nothing here;
 * the validator checks them. Anything else reads as `unknown`.
 */

/** The type of the data `S` accepts (`S` declared `as const`). */
export type FromSchema<S> = S extends true
  ? unknown
  : S extends false
    ? never
    : S extends { const: infer C }
      ? C
      : S extends { enum: readonly (infer E)[] }
        ? E
        : S extends { anyOf: readonly (infer B)[] }
          ? Each<B>
          : S extends { oneOf: readonly (infer B)[] }
            ? Each<B>
            : S extends { allOf: readonly [infer A, ...infer Rest] }
              ? FromSchema<A> & FromSchema<{ allOf: Rest }>
              : S extends { type: infer T }
                ? OfType<S, T extends readonly (infer U)[] ? U : T>
                : S extends { allOf: readonly [] }
                  ? unknown
                  : S extends { properties: object }
                    ? OfType<S, 'object'>
                    : unknown;

/** One branch type per schema of a union (distributes over `B`). */
type Each<B> = B extends unknown ? FromSchema<B> : never;

/** The type of `S`'s values of JSON type `T` (distributes over a list of types). */
type OfType<S, T> = T extends 'string'
  ? string
  : T extends 'number' | 'integer'
    ? number
    : T extends 'boolean'
      ? boolean
      : T extends 'null'
        ? null
        : T extends 'array'
          ? S extends { items: infer I }
            ? FromSchema<I>[]
            : unknown[]
          : T extends 'object'
            ? ObjectOf<S>
            : never;

type RequiredKeys<S> = S extends { required: readonly (infer R)[] } ? R : never;

/** `properties` (required ones required), plus the `additionalProperties` map if any. */
type ObjectOf<S> = S extends { properties: infer P }
  ? Flat<
      { -readonly [K in keyof P as K extends RequiredKeys<S> ? K : never]: FromSchema<P[K]> } & {
        -readonly [K in keyof P as K extends RequiredKeys<S> ? never : K]?: FromSchema<P[K]>;
      } & Extra<S>
    >
  : S extends { additionalProperties: infer A }
    ? A extends false
      ? Record<string, never>
      : Record<string, FromSchema<A>>
    : Record<string, unknown>;

type Extra<S> = S extends { additionalProperties: infer A }
  ? A extends false
    ? unknown
    : { [key: string]: unknown }
  : unknown;

/** Show an intersection as one object type. */
type Flat<T> = { [K in keyof T]: T[K] } & {};

/**
 * `FromSchema<typeof SCHEMA>`: the TypeScript type of the data a JSON Schema
 * written `as const` accepts, so a schema is the one source of its type (core's
 * data types, modules' configs). Covers `type` (one or a list), `properties` +
 * `required`, `additionalProperties`, `items`, `enum`, `const`, `anyOf`,
 * `oneOf`, `allOf` (intersected). Value keywords (`minimum`, `pattern`...)
 * narrow nothing here; the validator checks them. Anything else reads as
 * `unknown`, unless the node says its type with `SchemaOf<T>`. Types only.
 */

declare const schemaType: unique symbol;

/**
 * A JSON Schema node whose data has type `T`, for what `FromSchema` cannot
 * derive (a `$ref`, a schema built by code, a union written with `if`/`then`):
 * `items: { $ref: 'message.json' } as SchemaOf<Message>`. Type only.
 */
export type SchemaOf<T> = { readonly [key: string]: unknown; readonly [schemaType]?: T };

/**
 * `nullIsAbsent`: an optional property whose schema allows `null` is typed
 * without it (data from Python Amplifier writes `None` for "not set").
 */
export interface FromSchemaOptions {
  nullIsAbsent?: boolean;
}

/** The type of the data `S` accepts (`S` declared `as const`). */
export type FromSchema<S, O extends FromSchemaOptions = {}> = S extends { readonly [schemaType]?: infer T }
  ? unknown extends T
    ? Derive<S, O>
    : T
  : Derive<S, O>;

type Derive<S, O extends FromSchemaOptions> = S extends true
  ? unknown
  : S extends false
    ? never
    : S extends { const: infer C }
      ? C
      : S extends { enum: readonly (infer E)[] }
        ? E
        : S extends { anyOf: readonly (infer B)[] } | { oneOf: readonly (infer B)[] }
          ? Each<B, O>
          : S extends { allOf: readonly [infer A, ...infer Rest] }
            ? FromSchema<A, O> & FromSchema<{ allOf: Rest }, O>
            : S extends { type: infer T }
              ? OfType<S, T extends readonly (infer U)[] ? U : T, O>
              : S extends { properties: object }
                ? OfType<S, 'object', O>
                : unknown;

/** One branch type per schema of a union (distributes over `B`). */
type Each<B, O extends FromSchemaOptions> = B extends unknown ? FromSchema<B, O> : never;

/** The type of `S`'s values of JSON type `T` (distributes over a list of types). */
type OfType<S, T, O extends FromSchemaOptions> = T extends 'string'
  ? string
  : T extends 'number' | 'integer'
    ? number
    : T extends 'boolean'
      ? boolean
      : T extends 'null'
        ? null
        : T extends 'array'
          ? S extends { items: infer I }
            ? FromSchema<I, O>[]
            : unknown[]
          : T extends 'object'
            ? ObjectOf<S, O>
            : never;

type RequiredKeys<S> = S extends { required: readonly (infer R)[] } ? R : never;

/** An optional property's type (without `null` under `nullIsAbsent`). */
type Optional<T, O extends FromSchemaOptions> = O extends { nullIsAbsent: true } ? Exclude<T, null> : T;

/** `properties` (required ones required), plus the `additionalProperties` map if any. */
type ObjectOf<S, O extends FromSchemaOptions> = S extends { properties: infer P }
  ? Flat<
      { -readonly [K in keyof P as K extends RequiredKeys<S> ? K : never]: FromSchema<P[K], O> } & {
        -readonly [K in keyof P as K extends RequiredKeys<S> ? never : K]?: Optional<FromSchema<P[K], O>, O>;
      } & Extra<S>
    >
  : S extends { additionalProperties: infer A }
    ? A extends false
      ? Record<string, never>
      : Record<string, FromSchema<A, O>>
    : Record<string, unknown>;

type Extra<S> = S extends { additionalProperties: infer A }
  ? A extends false
    ? unknown
    : { [key: string]: unknown }
  : unknown;

/** An intersection shown as one object type. */
export type Flat<T> = { [K in keyof T]: T[K] } & {};

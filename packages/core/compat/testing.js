/**
 * @deprecated `@amplifier/core/testing` moved to @amplifier/testing and @amplifier/provider-http/testing in core 0.2.0.
 * This re-export is removed in core 0.3.0: install the kit and import it
 * from there.
 */

export * from '@amplifier/provider-http/testing';
export * from '@amplifier/testing';

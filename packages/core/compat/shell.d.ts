/**
 * @deprecated `@amplifier/core/shell` moved to @amplifier/process/shell in core 0.2.0.
 * This re-export is removed in core 0.3.0: install the kit and import it
 * from there.
 */
export * from '@amplifier/process/shell';

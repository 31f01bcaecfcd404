/** Reported in the X-SDK-Client telemetry header; keep in step with package.json. */
export const SDK_IDENTIFIER = 'Latchkey widget';
export const SDK_VERSION = '@latchkey/widget@0.1.0';

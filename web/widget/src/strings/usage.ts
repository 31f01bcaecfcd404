/**
 * The usage error's strings (spec section 8: 'Invalid call to ...' with a field-must-be-a-type
 * message). A table of their own, not part of the main one: the client throws them at the call,
 * outside any mounted widget, so a widget's `strings` option cannot reach them.
 */
export const usageEn = {
  'usage.call': 'Invalid call to {method}\n{message}',
  'usage.string': '{field} must be a string.',
  'usage.number': '{field} must be a number.',
  'usage.boolean': '{field} must be a boolean.',
  'usage.object': '{field} must be an object.',
  'usage.function': '{field} must be a function.',
};

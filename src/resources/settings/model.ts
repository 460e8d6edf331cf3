/**
 * The application settings' desired part: the declared settings by name. Kept under the kind's name
 * in `DesiredInstance.resources` and read through {@link settingsOf}.
 */
import type { DesiredInstance, DesiredValue } from '../../config/model.js';

const NONE: ReadonlyMap<string, DesiredValue> = new Map();

/** The settings the instance declares (none: an empty map). */
export function settingsOf(instance: DesiredInstance): ReadonlyMap<string, DesiredValue> {
  return (instance.resources.get('application_settings') as ReadonlyMap<string, DesiredValue> | undefined) ?? NONE;
}

/** The Pages' JSON Schema fragment: `pages:` of a project. */
import type { JsonSchema } from '../../config/kinds.js';

/** A DNS host name: labels of letters, digits and inner hyphens, dot-separated, at most 253 characters. */
const HOSTNAME_PATTERN = '^(?=.{1,253}\\.?$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\\.?$';

export function pagesSchema(): JsonSchema {
  return {
    type: 'object',
    description: "A project's Pages settings (PATCH /projects/:id/pages).",
    additionalProperties: false,
    properties: {
      pages_unique_domain_enabled: { type: 'boolean', description: 'Use a unique domain.' },
      pages_https_only: { type: 'boolean', description: 'Force HTTPS.' },
      pages_primary_domain: {
        type: ['string', 'null'],
        pattern: `^$|${HOSTNAME_PATTERN}`,
        description: 'One of the already assigned domains; all Pages requests redirect to it. Since 17.8. An empty string or null clears it.',
      },
      published: { type: 'boolean', description: '`false` unpublishes the Pages site (DELETE, a destroy); `true` expects a deployment.' },
      allow_unpublish: { type: 'boolean', default: false, description: 'Apply an unpublish of this project without --allow-destroy.' },
    },
  };
}

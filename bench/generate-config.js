// Writes a large, valid configuration: settings plus tokens, files and Pages up to N resources.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export function writeLargeConfig(dir, resources = 5000) {
  mkdirSync(dir, { recursive: true });
  const lines = ['version: 1', 'instances:', '  big:', '    url: https://code.example.com', '    token_env: PLUMB_TOKEN', '    settings:'];
  const settings = { signup_enabled: false, deletion_adjourned_period: 14, max_login_attempts: 10, default_projects_limit: 100, session_expire_delay: 10080 };
  for (const [k, v] of Object.entries(settings)) lines.push(`      ${k}: ${v}`);
  let n = Object.keys(settings).length;
  const groups = [];
  const projects = [];
  for (let g = 0; n < resources / 2; g++) {
    groups.push(`      team-${g}/sub:`, '        access_tokens:');
    for (let t = 0; t < 10 && n < resources / 2; t++, n++) {
      groups.push(
        `          tok-${t}:`,
        `            scopes: [read_api, read_repository]`,
        `            access_level: developer`,
        `            rotation: {lifetime_days: 90, rotate_before_days: 14}`,
        `            sink: {file: secrets/team-${g}-tok-${t}.token}`,
      );
    }
  }
  for (let p = 0; n < resources; p++) {
    projects.push(`      team-${p}/app:`, '        pages: {pages_https_only: true}', '        files:');
    n++;
    for (let f = 0; f < 9 && n < resources; f++, n++) {
      projects.push(`          config/file-${f}.yaml:`, `            content: "key: value-${f}\\n"`, '            branches: [main]');
    }
  }
  // Joined, not spread into one push: a spread passes every line as an argument on the stack, which
  // overflows it past ~100,000 lines (40,000 resources).
  const text = [...lines, '    groups:', ...groups, '    projects:', ...projects].join('\n');
  const file = path.join(dir, 'plumb.yaml');
  writeFileSync(file, text + '\n');
  return { file, resources: n };
}

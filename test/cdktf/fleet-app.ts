/** A CDKTF app looping over plumb's group listings, for test/cdktf/data-sources.test.ts and test/provider/data-sources.e2e.test.ts. */

/** An app that writes SECURITY.md into every project under platform/ but the legacy ones. */
export const FLEET_APP = `import { App, TerraformIterator, TerraformOutput, TerraformStack, TerraformVariable } from 'cdktf';
import { dataPlumbGroups, dataPlumbProjects, provider, repositoryFile } from 'plumb-gitops/cdktf';

const app = new App();
const stack = new TerraformStack(app, 'fleet');
const url = new TerraformVariable(stack, 'url', { type: 'string' });
new provider.PlumbProvider(stack, 'plumb', { url: url.stringValue, tokenEnv: 'PLUMB_TOKEN', allowRisky: ['admin-push-protected-branch'] });
const platform = new dataPlumbProjects.DataPlumbProjects(stack, 'platform', { group: 'platform', exclude: ['platform/legacy/**'] });
const each = TerraformIterator.fromList(platform.paths);
new repositoryFile.RepositoryFile(stack, 'security', {
  forEach: each,
  project: each.value,
  filePath: 'SECURITY.md',
  content: 'Report vulnerabilities to security@example.test\\n',
});
const teams = new dataPlumbGroups.DataPlumbGroups(stack, 'teams', { group: 'platform', includeDescendants: false });
new TerraformOutput(stack, 'team_paths', { value: teams.paths });
new TerraformOutput(stack, 'first_project', { value: platform.projects.get(0).pathWithNamespace });
app.synth();
`;

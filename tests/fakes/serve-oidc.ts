// The test identity provider (test-oidc-idp.ts) as its own process, for the e2e server:
//   node --import tsx tests/fakes/serve-oidc.ts --port N --redirect-uri URL
// Prints `listening URL` when ready (its discovery document is Playwright's readiness probe).
import { startTestIdp } from './test-oidc-idp';

const args = process.argv.slice(2);
const flag = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const port = Number(flag('--port'));
const redirectUri = flag('--redirect-uri');
if (!Number.isInteger(port) || port <= 0 || !redirectUri) {
  console.error('usage: serve-oidc.ts --port N --redirect-uri URL');
  process.exit(2);
}
void startTestIdp({ port, redirectUris: [redirectUri] }).then((idp) => console.log(`listening ${idp.issuer}`));

// A real OAuth 2.1 authorization server for the tests: oidc-provider (OpenID Certified, pinned
// in package-lock.json) on 127.0.0.1, issuing JWT access tokens for one resource.
//
//   node oauth_provider.mjs RESOURCE_URL
//
// Prints its issuer URL (http://127.0.0.1:PORT) as its first line, then serves until killed.
// One confidential client, `toolsmith-test` / `test-secret`, may use the client-credentials
// grant for the scopes `workspace:read` and `workspace:write`; every access token it gets is a JWT
// signed RS256 with a key made at start (its JWK set at /jwks), its audience the resource
// (RFC 8707 resource indicators), its subject the client.
import { generateKeyPairSync } from "node:crypto";
import { createServer } from "node:http";
import Provider from "oidc-provider";

const resource = process.argv[2];
if (!resource) {
  console.error("usage: node oauth_provider.mjs RESOURCE_URL");
  process.exit(2);
}
const SCOPES = "workspace:read workspace:write";
const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
const signing = { ...privateKey.export({ format: "jwk" }), kid: "test-rs256", alg: "RS256", use: "sig" };

const server = createServer();
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const issuer = `http://127.0.0.1:${server.address().port}`;
const provider = new Provider(issuer, {
  clients: [
    {
      client_id: "toolsmith-test",
      client_secret: "test-secret",
      grant_types: ["client_credentials"],
      redirect_uris: [],
      response_types: [],
      token_endpoint_auth_method: "client_secret_basic",
      scope: SCOPES,
    },
  ],
  scopes: SCOPES.split(" "),
  jwks: { keys: [signing] },
  features: {
    devInteractions: { enabled: false },
    clientCredentials: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => resource,
      useGrantedResource: () => true,
      getResourceServerInfo: (_ctx, indicator) => {
        if (indicator !== resource) throw new Error(`unknown resource ${indicator}`);
        return { scope: SCOPES, audience: resource, accessTokenFormat: "jwt", jwt: { sign: { alg: "RS256" } } };
      },
    },
  },
});
server.on("request", provider.callback());
console.log(issuer);

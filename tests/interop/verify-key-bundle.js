// Verify an evidencepack key-mode bundle with the JavaScript Sigstore client.
// usage: node verify-key-bundle.js BUNDLE PUBLIC_PEM
const fs = require("fs");
const crypto = require("crypto");
const { bundleFromJSON } = require("@sigstore/bundle");
const { Verifier, toSignedEntity, toTrustMaterial } = require("@sigstore/verify");

const [bundlePath, keyPath] = process.argv.slice(2);
const bundle = bundleFromJSON(JSON.parse(fs.readFileSync(bundlePath, "utf8")));
const publicKey = crypto.createPublicKey(fs.readFileSync(keyPath));
const root = { mediaType: "application/vnd.dev.sigstore.trustedroot+json;version=0.1",
  tlogs: [], certificateAuthorities: [], ctlogs: [], timestampAuthorities: [] };
const trust = toTrustMaterial(root, (hint) => ({ publicKey, validFor: () => true }));
const verifier = new Verifier(trust, { tlogThreshold: 0, ctlogThreshold: 0, timestampThreshold: 0 });
try {
  const signer = verifier.verify(toSignedEntity(bundle));
  console.log("OK", bundle.verificationMaterial.content.publicKey.hint);
} catch (err) {
  console.log("FAIL", err.code || "", err.message);
  process.exit(1);
}

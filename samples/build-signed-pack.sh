#!/usr/bin/env bash
# Build the bundled SAMPLE pack, sign it with a key this script generates (key mode: offline,
# no Sigstore account), then verify it.
#   usage: bash samples/build-signed-pack.sh [OUTDIR] [SPEC]   (default: out, samples/pack.yaml;
#          SPEC samples/pack-api.yaml builds the hosted-API sample)
# Leaves OUTDIR/pack/ (the signed pack), OUTDIR/pack.tar.gz and the key pair under keygen's
# default names: OUTDIR/evidencepack.key.pem (encrypted) / OUTDIR/evidencepack.pub.pem.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-out}
spec=${2:-samples/pack.yaml}
mkdir -p "$out"
# A sample passphrase; set EVIDENCEPACK_KEY_PASSPHRASE yourself for a key you keep.
export EVIDENCEPACK_KEY_PASSPHRASE=${EVIDENCEPACK_KEY_PASSPHRASE:-sample-passphrase}
if [ ! -f "$out/evidencepack.key.pem" ]; then
  evidencepack keygen --private-key "$out/evidencepack.key.pem" --public-key "$out/evidencepack.pub.pem"
fi
evidencepack build "$spec" -o "$out/pack" --key "$out/evidencepack.key.pem" --archive --force
evidencepack verify "$out/pack" --key "$out/evidencepack.pub.pem"

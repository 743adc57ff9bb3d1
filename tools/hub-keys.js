// Makes the hub's JWS key pair for the local runtime if it is missing: the private key at
// JWS_HUB_SIGNING_KEY_PATH (the notification handler signs the hub's callbacks with it) and
// the public key at JWS_HUB_PUBLIC_KEY_PATH (the admin API publishes it). scripts/up.sh runs
// it before the services start; an existing pair is kept, so DFSPs keep verifying with it.
import { ensureKeyPairFiles } from './lib/jws-key-files.js';

const privateKeyPath = process.env.JWS_HUB_SIGNING_KEY_PATH;
const publicKeyPath = process.env.JWS_HUB_PUBLIC_KEY_PATH;
if (privateKeyPath === '') {
  // A lab that measures without JWS: the notification handler then signs nothing.
  console.log('JWS_HUB_SIGNING_KEY_PATH is empty: the hub signs nothing');
  process.exit(0);
}
if (!privateKeyPath || !publicKeyPath) {
  console.error('JWS_HUB_SIGNING_KEY_PATH and JWS_HUB_PUBLIC_KEY_PATH must be set (scripts/env.sh sets both)');
  process.exit(1);
}
ensureKeyPairFiles({ privateKeyPath, publicKeyPath });
console.log(`hub JWS key pair: ${privateKeyPath}, ${publicKeyPath}`);

// The FSPIOP headers a DFSP sends: a request (with Accept) or a callback (without, as the
// SDKs send them). One builder for the demo, the test DFSPs and the load-test simulators.

const media = (resource, version) => `application/vnd.interoperability.${resource}+json;version=${version}`;

export function dfspHeaders(resource, source, destination, { accept = true } = {}) {
  return {
    'content-type': media(resource, '1.1'),
    ...(accept ? { accept: media(resource, '1') } : {}),
    date: new Date().toUTCString(),
    'fspiop-source': source,
    ...(destination ? { 'fspiop-destination': destination } : {}),
  };
}

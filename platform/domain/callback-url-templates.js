// A DFSP's callback URL is a template (`http://dfsp.example/transfers/{{transferId}}`) that the
// switch renders for each callback with values from the request being answered: ids and party
// identifiers the requester chose. Those values may only ever land in the path and the query.
// A placeholder in the scheme, user info, host or port (`http://{{partyIdentifier}}/parties`)
// would let every payer pick the machine the switch connects to, so such a template is refused
// when it is registered (ledger/domain/callback-urls.js) and again before a callback is sent
// (platform/delivery/deliver.js), for rows registered before the rule.

// `scheme://authority`: everything before the path, query or fragment. A backslash ends the
// authority as the URL parser reads http(s) URLs; a template without `://` has no authority
// of its own and is read as origin throughout, so it can only be refused, never let through.
const ORIGIN = /^[^:/?#]*:\/\/[^/?#\\]*/;

/** Why the template's scheme, host or port is not fixed text, or undefined when it is. */
export function originPlaceholderProblem(template) {
  const origin = ORIGIN.exec(template)?.[0] ?? template;
  if (!origin.includes('{{')) return undefined;
  return 'a placeholder before the path (in the scheme, host or port) would let each request choose where the switch '
    + 'connects; placeholders may stand only in the path and query';
}

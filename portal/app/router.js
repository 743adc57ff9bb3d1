// Views are addressed by the page's fragment (#/dfsps/payerfsp), so a link can be shared and
// the back button works, while the server serves one page. Nothing secret is ever put there.
import { useEffect, useState } from 'react';

function currentRoute() {
  const path = decodeURIComponent(window.location.hash.replace(/^#/, '')) || '/dfsps';
  const [, view = 'dfsps', ...rest] = path.split('/');
  return { view, rest };
}

export function useRoute() {
  const [route, setRoute] = useState(currentRoute);
  useEffect(() => {
    const onChange = () => setRoute(currentRoute());
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return route;
}

export function linkTo(view, ...rest) {
  return `#/${[view, ...rest.map(encodeURIComponent)].join('/')}`;
}

// CoreDNS with only the plugins the one-node cluster's DNS uses (test/cluster/k8s-cluster.sh): the
// kubernetes plugin answers cluster.local from the API, forward sends every other name to the
// host's resolver. Built this way (the documented compile-time plugin selection) rather than
// `go build` of CoreDNS itself, because its full plugin set pulls in the AWS, Azure and Google
// Cloud SDKs and would triple the build time for plugins the cluster never loads.
package main

import (
	"github.com/coredns/coredns/core/dnsserver"
	"github.com/coredns/coredns/coremain"

	// The plugins, each registering itself with the server by its init.
	_ "github.com/coredns/coredns/plugin/bind"
	_ "github.com/coredns/coredns/plugin/cache"
	_ "github.com/coredns/coredns/plugin/errors"
	_ "github.com/coredns/coredns/plugin/forward"
	_ "github.com/coredns/coredns/plugin/health"
	_ "github.com/coredns/coredns/plugin/hosts"
	_ "github.com/coredns/coredns/plugin/kubernetes"
	_ "github.com/coredns/coredns/plugin/loadbalance"
	_ "github.com/coredns/coredns/plugin/log"
	_ "github.com/coredns/coredns/plugin/ready"
	_ "github.com/coredns/coredns/plugin/reload"
	_ "github.com/coredns/coredns/plugin/whoami"
)

// The plugins' order in a server block, which CoreDNS takes from this list and not from the
// Corefile: the same relative order as CoreDNS's own plugin.cfg.
var directives = []string{
	"reload",
	"bind",
	"ready",
	"health",
	"errors",
	"log",
	"loadbalance",
	"cache",
	"hosts",
	"kubernetes",
	"forward",
	"whoami",
}

func init() {
	dnsserver.Directives = directives
}

func main() {
	coremain.Run()
}

// k8s-netpol enforces Kubernetes NetworkPolicies on the one-node cluster's pod bridge
// (test/cluster/k8s-cluster.sh) with iptables, as a host process.
//
// The bridge CNI plugin enforces no policy, and the controllers that would (kube-router's
// firewall, kube-network-policies) cannot be had from the Go module proxy here, so this small
// controller does the same job the way kube-router does it: pods, namespaces and policies are
// watched; for every pod that a policy isolates, a chain holds the allowed peers and ports and
// ends in REJECT; a chain NETPOL-FORWARD, kept first in the filter table's FORWARD chain, sends
// new connections from and to those pods through them. Bridged pod-to-pod traffic reaches
// FORWARD because net.bridge.bridge-nf-call-iptables=1, and Service traffic is seen there
// already rewritten to the pod's address by kube-proxy's DNAT.
//
// Covered: policy types Ingress and Egress (with the API's defaults), podSelector,
// namespaceSelector, both together, ipBlock with except, ports with protocol, named ports and
// endPort. Traffic between a pod and the node itself (DNS on the bridge's gateway, kubelet
// probes, the API server) does not pass FORWARD and is never filtered.
//
//	k8s-netpol --kubeconfig FILE --node-name NAME [--health-address 127.0.0.1:18182]
package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	networkinglisters "k8s.io/client-go/listers/networking/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
)

const (
	forwardChain = "NETPOL-FORWARD"
	chainPrefix  = "NETPOL-"
	// The packet mark bit that says "an allow rule matched"; kube-proxy uses 0x4000 and 0x8000.
	allowMark = "0x10000/0x10000"
	clearMark = "0x0/0x10000"
)

func main() {
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig of the cluster")
	nodeName := flag.String("node-name", "", "only pods on this node are isolated (empty: all)")
	healthAddress := flag.String("health-address", "127.0.0.1:18182", "where /healthz answers")
	resync := flag.Duration("resync", 30*time.Second, "how often the rules are rewritten and the FORWARD hook checked even without changes")
	_ = flag.String("state-dir", "", "the cluster dir (names this process as the cluster's in its command line)")
	flag.Parse()
	log.SetFlags(log.LstdFlags | log.Lmicroseconds)

	config, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		log.Fatalf("reading kubeconfig %s: %v", *kubeconfig, err)
	}
	client, err := kubernetes.NewForConfig(config)
	if err != nil {
		log.Fatalf("creating the API client: %v", err)
	}

	factory := informers.NewSharedInformerFactory(client, 0)
	c := &controller{
		nodeName:   *nodeName,
		pods:       factory.Core().V1().Pods().Lister(),
		namespaces: factory.Core().V1().Namespaces().Lister(),
		policies:   factory.Networking().V1().NetworkPolicies().Lister(),
		changed:    make(chan struct{}, 1),
	}
	handler := cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { c.trigger() },
		UpdateFunc: func(any, any) { c.trigger() },
		DeleteFunc: func(any) { c.trigger() },
	}
	for _, informer := range []cache.SharedIndexInformer{
		factory.Core().V1().Pods().Informer(),
		factory.Core().V1().Namespaces().Informer(),
		factory.Networking().V1().NetworkPolicies().Informer(),
	} {
		if _, err := informer.AddEventHandler(handler); err != nil {
			log.Fatalf("watching: %v", err)
		}
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	factory.Start(ctx.Done())
	for informerType, ok := range factory.WaitForCacheSync(ctx.Done()) {
		if !ok {
			log.Fatalf("the %v cache did not sync", informerType)
		}
	}

	go c.serveHealth(*healthAddress, 3**resync)
	c.run(ctx, *resync)

	// Policies are no longer enforced once this process is gone; its rules must not linger and
	// reject traffic that a policy changed since would allow.
	if err := removeRules(); err != nil {
		log.Printf("removing the rules on exit: %v", err)
		os.Exit(1)
	}
	log.Printf("rules removed, exiting")
}

type controller struct {
	nodeName   string
	pods       corelisters.PodLister
	namespaces corelisters.NamespaceLister
	policies   networkinglisters.NetworkPolicyLister
	changed    chan struct{}

	mu           sync.Mutex
	lastSuccess  time.Time
	lastRules    string
	lastProblems string
}

func (c *controller) trigger() {
	select {
	case c.changed <- struct{}{}:
	default:
	}
}

func (c *controller) run(ctx context.Context, resync time.Duration) {
	ticker := time.NewTicker(resync)
	defer ticker.Stop()
	for {
		if err := c.sync(); err != nil {
			log.Printf("sync failed: %v", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		case <-c.changed:
			// A burst of events (a Deployment's pods starting) becomes one rewrite.
			time.Sleep(100 * time.Millisecond)
			select {
			case <-c.changed:
			default:
			}
		}
	}
}

func (c *controller) serveHealth(address string, maxAge time.Duration) {
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		c.mu.Lock()
		age := time.Since(c.lastSuccess)
		c.mu.Unlock()
		if age > maxAge {
			http.Error(w, fmt.Sprintf("last successful sync %s ago", age.Round(time.Second)), http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("/rules", func(w http.ResponseWriter, _ *http.Request) {
		c.mu.Lock()
		defer c.mu.Unlock()
		fmt.Fprint(w, c.lastRules)
	})
	log.Fatal(http.ListenAndServe(address, mux))
}

// sync rewrites every NETPOL-* chain from the current pods, namespaces and policies in one
// iptables-restore transaction, then makes sure NETPOL-FORWARD is the first rule of FORWARD.
func (c *controller) sync() error {
	started := time.Now()
	rules, summary, err := c.buildRules()
	if err != nil {
		return err
	}
	existing, err := existingChains()
	if err != nil {
		return err
	}
	script := rules.restoreScript(existing)
	if err := run(script, "iptables-restore", "--noflush", "-w", "5"); err != nil {
		return fmt.Errorf("iptables-restore: %w\n%s", err, script)
	}
	if err := ensureForwardHook(); err != nil {
		return err
	}
	c.mu.Lock()
	changed := script != c.lastRules
	c.lastRules = script
	c.lastSuccess = time.Now()
	c.mu.Unlock()
	if changed {
		log.Printf("rules rewritten in %s: %s", time.Since(started).Round(time.Millisecond), summary)
	}
	return nil
}

// ruleSet is the filter table content this controller owns: chains in creation order.
type ruleSet struct {
	order  []string
	chains map[string][]string
}

func newRuleSet() *ruleSet { return &ruleSet{chains: map[string][]string{}} }

func (r *ruleSet) add(chain, rule string) {
	if _, ok := r.chains[chain]; !ok {
		r.order = append(r.order, chain)
		r.chains[chain] = nil
	}
	r.chains[chain] = append(r.chains[chain], rule)
}

// restoreScript declares (and so flushes) every chain of the controller, fills the wanted ones
// and deletes the rest, for `iptables-restore --noflush`.
func (r *ruleSet) restoreScript(existing []string) string {
	var b strings.Builder
	b.WriteString("*filter\n")
	declared := map[string]bool{}
	for _, chain := range append(append([]string{}, r.order...), existing...) {
		if !declared[chain] {
			declared[chain] = true
			fmt.Fprintf(&b, ":%s - [0:0]\n", chain)
		}
	}
	for _, chain := range r.order {
		for _, rule := range r.chains[chain] {
			fmt.Fprintf(&b, "-A %s %s\n", chain, rule)
		}
	}
	for _, chain := range existing {
		if _, wanted := r.chains[chain]; !wanted {
			fmt.Fprintf(&b, "-X %s\n", chain)
		}
	}
	b.WriteString("COMMIT\n")
	return b.String()
}

type direction struct {
	name     string // ingress or egress
	peerFlag string // the iptables match of the peer's address
	podFlag  string // the iptables match of the isolated pod's address
	short    string
}

var (
	ingress = direction{name: "ingress", peerFlag: "-s", podFlag: "-d", short: "I"}
	egress  = direction{name: "egress", peerFlag: "-d", podFlag: "-s", short: "E"}
)

// allowRule is one ingress or egress rule of a policy, in the form both directions share.
type allowRule struct {
	policy string
	index  int
	peers  []networkingv1.NetworkPolicyPeer
	ports  []networkingv1.NetworkPolicyPort
}

func (c *controller) buildRules() (*ruleSet, string, error) {
	pods, err := c.pods.List(labels.Everything())
	if err != nil {
		return nil, "", err
	}
	namespaces, err := c.namespaces.List(labels.Everything())
	if err != nil {
		return nil, "", err
	}
	policies, err := c.policies.List(labels.Everything())
	if err != nil {
		return nil, "", err
	}
	sort.Slice(pods, func(i, j int) bool { return pods[i].Namespace+"/"+pods[i].Name < pods[j].Namespace+"/"+pods[j].Name })
	sort.Slice(policies, func(i, j int) bool {
		return policies[i].Namespace+"/"+policies[i].Name < policies[j].Namespace+"/"+policies[j].Name
	})
	namespaceLabels := map[string]labels.Set{}
	for _, ns := range namespaces {
		namespaceLabels[ns.Name] = ns.Labels
	}
	live := make([]*corev1.Pod, 0, len(pods))
	for _, pod := range pods {
		if podIPv4(pod) != "" && !pod.Spec.HostNetwork && pod.Status.Phase != corev1.PodSucceeded && pod.Status.Phase != corev1.PodFailed {
			live = append(live, pod)
		}
	}

	rules := newRuleSet()
	rules.add(forwardChain, "-m conntrack --ctstate RELATED,ESTABLISHED -j RETURN")
	isolated := map[string]int{}
	for _, dir := range []direction{egress, ingress} {
		for _, pod := range live {
			if c.nodeName != "" && pod.Spec.NodeName != c.nodeName {
				continue
			}
			var allows []allowRule
			selected := false
			for _, policy := range policies {
				if policy.Namespace != pod.Namespace || !appliesTo(policy, dir) {
					continue
				}
				selector, err := metav1.LabelSelectorAsSelector(&policy.Spec.PodSelector)
				if err != nil || !selector.Matches(labels.Set(pod.Labels)) {
					continue
				}
				selected = true
				if dir == ingress {
					for i, rule := range policy.Spec.Ingress {
						allows = append(allows, allowRule{policy: policy.Namespace + "/" + policy.Name, index: i, peers: rule.From, ports: rule.Ports})
					}
				} else {
					for i, rule := range policy.Spec.Egress {
						allows = append(allows, allowRule{policy: policy.Namespace + "/" + policy.Name, index: i, peers: rule.To, ports: rule.Ports})
					}
				}
			}
			if !selected {
				continue
			}
			isolated[dir.name]++
			podName := pod.Namespace + "/" + pod.Name
			chain := chainName(dir.short, string(pod.UID))
			rules.add(forwardChain, fmt.Sprintf("%s %s/32 -m comment --comment %q -j %s", dir.podFlag, podIPv4(pod), dir.name+" "+podName, chain))
			rules.add(chain, "-j MARK --set-xmark "+clearMark)
			for _, allow := range allows {
				c.addAllowRule(rules, chain, dir, pod, allow, live, namespaceLabels)
			}
			rules.add(chain, fmt.Sprintf("-m mark ! --mark %s -m comment --comment %q -j REJECT --reject-with icmp-port-unreachable", allowMark, "no "+dir.name+" policy of "+podName+" allows this"))
		}
	}
	rules.add(forwardChain, "-j MARK --set-xmark "+clearMark)
	summary := fmt.Sprintf("%d policies, %d pods, %d isolated for ingress, %d for egress", len(policies), len(live), isolated["ingress"], isolated["egress"])
	return rules, summary, nil
}

// appliesTo tells whether a policy isolates the pods it selects in the direction, with the
// API's default: Ingress always, Egress when the policy has egress rules.
func appliesTo(policy *networkingv1.NetworkPolicy, dir direction) bool {
	if len(policy.Spec.PolicyTypes) == 0 {
		return dir == ingress || len(policy.Spec.Egress) > 0
	}
	for _, policyType := range policy.Spec.PolicyTypes {
		if strings.EqualFold(string(policyType), dir.name) {
			return true
		}
	}
	return false
}

// addAllowRule writes the rules of one allow rule into the pod's chain: each matching peer and
// port sets the allow mark.
func (c *controller) addAllowRule(rules *ruleSet, chain string, dir direction, pod *corev1.Pod, allow allowRule,
	live []*corev1.Pod, namespaceLabels map[string]labels.Set) {
	comment := fmt.Sprintf("-m comment --comment %q", fmt.Sprintf("%s %s[%d]", allow.policy, dir.name, allow.index))
	mark := "-j MARK --set-xmark " + allowMark

	// Peer pods (or every pod, for a rule without peers) with the port matches that apply to
	// each: named ports resolve in the pod that receives the traffic.
	type peerPod struct {
		ip  string
		pod *corev1.Pod
	}
	var peerPods []peerPod
	var blocks []*networkingv1.IPBlock
	anyPeer := len(allow.peers) == 0
	if !anyPeer {
		for _, peer := range allow.peers {
			if peer.IPBlock != nil {
				blocks = append(blocks, peer.IPBlock)
				continue
			}
			for _, other := range live {
				if peerMatches(peer, pod.Namespace, other, namespaceLabels) {
					peerPods = append(peerPods, peerPod{ip: podIPv4(other), pod: other})
				}
			}
		}
	}

	receiver := func(peer *corev1.Pod) *corev1.Pod {
		if dir == ingress {
			return pod
		}
		return peer
	}
	if anyPeer {
		if !hasNamedPort(allow.ports) || dir == ingress {
			for _, ports := range portMatches(allow.ports, pod) {
				rules.add(chain, strings.TrimSpace(ports+" "+comment+" "+mark))
			}
			return
		}
		// Egress to any destination on a named port: the port can only be known per
		// destination pod.
		for _, other := range live {
			peerPods = append(peerPods, peerPod{ip: podIPv4(other), pod: other})
		}
	}
	seen := map[string]bool{}
	for _, peer := range peerPods {
		for _, ports := range portMatches(allow.ports, receiver(peer.pod)) {
			rule := strings.TrimSpace(fmt.Sprintf("%s %s/32 %s %s %s", dir.peerFlag, peer.ip, ports, comment, mark))
			if !seen[rule] {
				seen[rule] = true
				rules.add(chain, rule)
			}
		}
	}
	for i, block := range blocks {
		// A block with exceptions gets a chain of its own: the exceptions return before the
		// block's address range sets the mark.
		blockChain := chainName("B", fmt.Sprintf("%s/%s/%d/%d", pod.UID, allow.policy, allow.index, i))
		for _, except := range block.Except {
			rules.add(blockChain, fmt.Sprintf("%s %s -j RETURN", dir.peerFlag, except))
		}
		rules.add(blockChain, fmt.Sprintf("%s %s %s", dir.peerFlag, block.CIDR, mark))
		// Named ports cannot be resolved for addresses outside the cluster: they match nothing.
		for _, ports := range portMatches(allow.ports, nil) {
			rules.add(chain, strings.TrimSpace(ports+" "+comment+" -j "+blockChain))
		}
	}
}

func peerMatches(peer networkingv1.NetworkPolicyPeer, policyNamespace string, other *corev1.Pod, namespaceLabels map[string]labels.Set) bool {
	if peer.NamespaceSelector == nil {
		if other.Namespace != policyNamespace {
			return false
		}
	} else {
		selector, err := metav1.LabelSelectorAsSelector(peer.NamespaceSelector)
		if err != nil || !selector.Matches(namespaceLabels[other.Namespace]) {
			return false
		}
	}
	if peer.PodSelector == nil {
		return true
	}
	selector, err := metav1.LabelSelectorAsSelector(peer.PodSelector)
	return err == nil && selector.Matches(labels.Set(other.Labels))
}

func hasNamedPort(ports []networkingv1.NetworkPolicyPort) bool {
	for _, port := range ports {
		if port.Port != nil && port.Port.StrVal != "" {
			return true
		}
	}
	return false
}

// portMatches turns a rule's ports into iptables matches ("" for any port). A named port is
// looked up in the receiving pod's containers; unresolvable, it yields no match at all.
func portMatches(ports []networkingv1.NetworkPolicyPort, receiver *corev1.Pod) []string {
	if len(ports) == 0 {
		return []string{""}
	}
	var matches []string
	for _, port := range ports {
		protocol := corev1.ProtocolTCP
		if port.Protocol != nil {
			protocol = *port.Protocol
		}
		proto := strings.ToLower(string(protocol))
		switch {
		case port.Port == nil:
			matches = append(matches, "-p "+proto)
		case port.Port.StrVal != "":
			if number := namedPort(receiver, port.Port.StrVal, protocol); number > 0 {
				matches = append(matches, fmt.Sprintf("-p %s --dport %d", proto, number))
			}
		case port.EndPort != nil:
			matches = append(matches, fmt.Sprintf("-p %s --dport %d:%d", proto, port.Port.IntVal, *port.EndPort))
		default:
			matches = append(matches, fmt.Sprintf("-p %s --dport %d", proto, port.Port.IntVal))
		}
	}
	return matches
}

func namedPort(pod *corev1.Pod, name string, protocol corev1.Protocol) int32 {
	if pod == nil {
		return 0
	}
	for _, container := range append(append([]corev1.Container{}, pod.Spec.InitContainers...), pod.Spec.Containers...) {
		for _, port := range container.Ports {
			portProtocol := port.Protocol
			if portProtocol == "" {
				portProtocol = corev1.ProtocolTCP
			}
			if port.Name == name && portProtocol == protocol {
				return port.ContainerPort
			}
		}
	}
	return 0
}

func podIPv4(pod *corev1.Pod) string {
	for _, podIP := range pod.Status.PodIPs {
		if ip := net.ParseIP(podIP.IP); ip != nil && ip.To4() != nil {
			return podIP.IP
		}
	}
	return ""
}

// chainName is a stable chain name within iptables' 28-character limit.
func chainName(kind, key string) string {
	sum := sha256.Sum256([]byte(key))
	return chainPrefix + kind + "-" + strings.ToUpper(hex.EncodeToString(sum[:])[:16])
}

func existingChains() ([]string, error) {
	out, err := output("iptables-save", "-t", "filter")
	if err != nil {
		return nil, fmt.Errorf("iptables-save: %w", err)
	}
	var chains []string
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, ":"+chainPrefix) {
			chains = append(chains, strings.Fields(line[1:])[0])
		}
	}
	return chains, nil
}

// ensureForwardHook keeps the jump to NETPOL-FORWARD first in FORWARD: kube-proxy's
// KUBE-FORWARD, inserted at the top when it starts, accepts packets it marked for masquerade,
// which would otherwise pass without a policy check.
func ensureForwardHook() error {
	out, err := output("iptables", "-w", "5", "-S", "FORWARD")
	if err != nil {
		return fmt.Errorf("iptables -S FORWARD: %w", err)
	}
	hook := "-A FORWARD -j " + forwardChain
	lines := strings.Split(strings.TrimSpace(out), "\n")
	count := 0
	for _, line := range lines {
		if line == hook {
			count++
		}
	}
	if len(lines) > 1 && lines[1] == hook && count == 1 {
		return nil
	}
	for ; count > 0; count-- {
		if err := run("", "iptables", "-w", "5", "-D", "FORWARD", "-j", forwardChain); err != nil {
			return err
		}
	}
	return run("", "iptables", "-w", "5", "-I", "FORWARD", "1", "-j", forwardChain)
}

func removeRules() error {
	for run("", "iptables", "-w", "5", "-D", "FORWARD", "-j", forwardChain) == nil {
	}
	existing, err := existingChains()
	if err != nil || len(existing) == 0 {
		return err
	}
	return run(newRuleSet().restoreScript(existing), "iptables-restore", "--noflush", "-w", "5")
}

func run(stdin string, name string, args ...string) error {
	cmd := exec.Command(name, args...)
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s %s: %v: %s", name, strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return nil
}

func output(name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%v: %s", err, strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
}

// The pod sandbox's pause process for the one-node cluster (test/cluster/k8s-cluster.sh): it holds
// the pod's namespaces, sleeps until SIGTERM or SIGINT, and as PID 1 of the pod reaps any child
// that is re-parented to it, as the upstream pause does. Built static (CGO_ENABLED=0) so the
// image needs nothing but this file.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	signals := make(chan os.Signal, 16)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM, syscall.SIGCHLD)
	for sig := range signals {
		if sig != syscall.SIGCHLD {
			os.Exit(0)
		}
		// Several children may have exited behind one SIGCHLD, so collect until none is left.
		for {
			var status syscall.WaitStatus
			pid, err := syscall.Wait4(-1, &status, syscall.WNOHANG, nil)
			if pid <= 0 || err != nil {
				break
			}
		}
	}
}

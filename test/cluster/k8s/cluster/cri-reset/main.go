// Stops and removes every pod sandbox of a containerd through its CRI API, the way the kubelet
// does when it deletes a pod: the containers are stopped, the CNI DEL tears down each pod's veth
// and IP address and host port rules, and the network namespace is removed. test/cluster/k8s-cluster.sh
// down calls it before it stops containerd, so that nothing of the pods is left on the host.
//
//	cri-reset unix:///path/to/containerd.sock
package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: cri-reset unix:///path/to/containerd.sock")
		os.Exit(2)
	}
	if err := reset(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "cri-reset:", err)
		os.Exit(1)
	}
}

func reset(endpoint string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	conn, err := grpc.NewClient(endpoint, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return fmt.Errorf("connecting to %s: %w", endpoint, err)
	}
	defer conn.Close()
	runtime := runtimeapi.NewRuntimeServiceClient(conn)

	sandboxes, err := runtime.ListPodSandbox(ctx, &runtimeapi.ListPodSandboxRequest{})
	if err != nil {
		return fmt.Errorf("listing pod sandboxes at %s: %w", endpoint, err)
	}
	failed := 0
	for _, sandbox := range sandboxes.Items {
		name := sandbox.Metadata.Namespace + "/" + sandbox.Metadata.Name
		// Stopping first runs the CNI DEL while the network namespace still exists; removing
		// alone would also stop, but reports a teardown failure less clearly.
		if _, err := runtime.StopPodSandbox(ctx, &runtimeapi.StopPodSandboxRequest{PodSandboxId: sandbox.Id}); err != nil {
			fmt.Fprintf(os.Stderr, "cri-reset: stopping pod %s (%s): %v\n", name, sandbox.Id, err)
			failed++
			continue
		}
		if _, err := runtime.RemovePodSandbox(ctx, &runtimeapi.RemovePodSandboxRequest{PodSandboxId: sandbox.Id}); err != nil {
			fmt.Fprintf(os.Stderr, "cri-reset: removing pod %s (%s): %v\n", name, sandbox.Id, err)
			failed++
			continue
		}
		fmt.Printf("removed pod %s\n", name)
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d pod sandboxes could not be removed", failed, len(sandboxes.Items))
	}
	return nil
}

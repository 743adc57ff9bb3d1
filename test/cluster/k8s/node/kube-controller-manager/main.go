// kube-controller-manager, exactly as k8s.io/kubernetes/cmd/kube-controller-manager builds it.
package main

import (
	"os"

	"k8s.io/component-base/cli"
	"k8s.io/kubernetes/cmd/kube-controller-manager/app"
)

func main() {
	os.Exit(cli.Run(app.NewControllerManagerCommand()))
}

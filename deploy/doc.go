// Package deploy holds no code: its tests check the deployment files beside it and at
// the repository's root against the service they deploy.
//
//   - TestKubernetes builds kubernetes/ with kustomize, decodes every object strictly
//     into the Kubernetes API types and checks probes, the drain, resources, security
//     and that production accepts the configuration.
//   - TestCompose runs the binary scripts/build makes (as the Dockerfile does) with
//     the environment compose.yaml and the Dockerfile give the skygate service, its
//     host names pointed at local services, through migrate, serve, a partner's token
//     and an employee's login.
//   - TestSystemd checks systemd/skygate.service with systemd-analyze.
//   - TestDockerfile checks the image's build against go.mod and its listeners.
//
// It is a module of its own so that the Kubernetes and kustomize modules stay out of
// the service's go.mod.
package deploy

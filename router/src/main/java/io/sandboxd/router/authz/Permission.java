package io.sandboxd.router.authz;

/**
 * The two permissions the scoped authorizer asks Kubernetes about, as a Role or ClusterRole grants
 * them ({@code apiGroups: [agents.x-k8s.io]}, {@code resources: [sandboxes/proxy]} or
 * {@code [sandboxes/pod-ip]}, {@code verbs: [create]}). Neither subresource is served by the API
 * server: they exist only as names RBAC can grant, like the verbs of {@code pods/exec}.
 */
enum Permission {
    /** Reach this sandbox ({@code namespace}/{@code name}); a Role in that namespace can grant it. */
    REACH_SANDBOX("proxy", true),
    /**
     * Name the Pod IP (X-Sandbox-Pod-IP): that bypasses resolution, so whoever has it can dial any Pod
     * address; it is asked cluster-wide and only a ClusterRoleBinding can grant it.
     */
    NAME_POD_IP("pod-ip", false);

    static final String GROUP = "agents.x-k8s.io";
    static final String RESOURCE = "sandboxes";
    static final String VERB = "create";

    final String subresource;
    final boolean namespaced;

    Permission(String subresource, boolean namespaced) {
        this.subresource = subresource;
        this.namespaced = namespaced;
    }

    /** e.g. {@code create sandboxes/proxy (agents.x-k8s.io) "sb" in namespace "team-a"}. */
    String describe(String namespace, String name) {
        String what = VERB + " " + RESOURCE + "/" + subresource + " (" + GROUP + ")";
        return namespaced ? what + " \"" + name + "\" in namespace \"" + namespace + "\"" : what + " cluster-wide";
    }

    /** The 403 detail: who, and what a Role must grant. Never the token. */
    String denial(String username, String namespace, String name) {
        return "Forbidden: " + (username == null || username.isEmpty() ? "the caller" : "\"" + username + "\"")
                + " may not " + describe(namespace, name) + "; "
                + (namespaced ? "a Role or ClusterRole" : "a ClusterRole bound cluster-wide") + " must grant it.";
    }
}

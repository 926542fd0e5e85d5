package io.sandboxd.router.resolve;

/** Ready sandbox Pods by name and by Sandbox UID; implemented by the informer cache. */
public interface PodCache {
    /** Pod IP of the Ready Pod backing sandbox {@code ns/name}, or null. Unclaimed warm-pool pods are absent. */
    String podIpByName(String namespace, String name);

    /**
     * Pod IP of the Ready Pod owned by the Sandbox with this UID, or null; only if that Sandbox is
     * {@code namespace/name}, so a UID never reaches a sandbox other than the one authorized.
     */
    String podIpByUid(String namespace, String name, String uid);

    /** Drops an entry whose IP proved unreachable, so the next attempt falls back to DNS. */
    void evict(String namespace, String name, String uid);

    /** True once the initial list has been applied. */
    boolean hasSynced();

    int size();

    PodCache DISABLED = new PodCache() {
        @Override
        public String podIpByName(String namespace, String name) {
            return null;
        }

        @Override
        public String podIpByUid(String namespace, String name, String uid) {
            return null;
        }

        @Override
        public void evict(String namespace, String name, String uid) {}

        @Override
        public boolean hasSynced() {
            return true;
        }

        @Override
        public int size() {
            return 0;
        }
    };
}

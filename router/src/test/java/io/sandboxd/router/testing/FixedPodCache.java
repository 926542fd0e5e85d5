package io.sandboxd.router.testing;

import io.sandboxd.router.resolve.PodCache;
import java.util.Map;

/** A pod cache with fixed entries {@code "ns/name" -> ip}, as an informer would hold them. */
public final class FixedPodCache implements PodCache {
    private final Map<String, String> byName;

    public FixedPodCache(Map<String, String> byName) {
        this.byName = Map.copyOf(byName);
    }

    @Override
    public String podIpByName(String namespace, String name) {
        return byName.get(namespace + "/" + name);
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
        return byName.size();
    }
}

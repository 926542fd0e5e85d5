package io.sandboxd.router.resolve;

import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceList;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.FilterWatchListDeletable;
import io.fabric8.kubernetes.client.dsl.ServiceResource;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A fabric8 Service informer over sandbox Services (label {@code agents.x-k8s.io/sandbox-name-hash})
 * keeping the set of {@code ns/name} that {@link SandboxPods#isSandboxService} accepts, so the DNS
 * fallback is a set probe on the event loop and reaches no other Service.
 */
public final class InformerServiceCache implements SandboxServices, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(InformerServiceCache.class);

    private final Set<String> sandboxServices = ConcurrentHashMap.newKeySet();
    private final SharedIndexInformer<Service> informer;

    /** @param namespace watch one namespace, or all when null/empty */
    public InformerServiceCache(KubernetesClient client, String namespace) {
        FilterWatchListDeletable<Service, ServiceList, ServiceResource<Service>> services =
                namespace == null || namespace.isEmpty()
                        ? client.services().inAnyNamespace().withLabel(SandboxPods.NAME_HASH_LABEL)
                        : client.services().inNamespace(namespace).withLabel(SandboxPods.NAME_HASH_LABEL);
        this.informer = services.runnableInformer(0);
        informer.addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(Service s) {
                apply(s);
            }

            @Override
            public void onUpdate(Service old, Service s) {
                apply(s);
            }

            @Override
            public void onDelete(Service s, boolean unknownFinalState) {
                sandboxServices.remove(key(s));
            }
        });
    }

    /** Starts the informer; the stage completes when the initial list has been applied. */
    public CompletionStage<Void> start() {
        return informer.start().whenComplete((v, t) -> {
            if (t != null) {
                log.error("Service informer failed to start: {}", t.toString());
            } else {
                log.info("Service informer synced: {} sandbox services", sandboxServices.size());
            }
        });
    }

    private void apply(Service s) {
        if (SandboxPods.isSandboxService(s)) {
            sandboxServices.add(key(s));
        } else {
            sandboxServices.remove(key(s));
        }
    }

    private static String key(Service s) {
        return s.getMetadata().getNamespace() + "/" + s.getMetadata().getName();
    }

    @Override
    public boolean isSandboxService(String namespace, String name) {
        return sandboxServices.contains(namespace + "/" + name);
    }

    public boolean hasSynced() {
        return informer.hasSynced();
    }

    @Override
    public void close() {
        informer.close();
    }
}

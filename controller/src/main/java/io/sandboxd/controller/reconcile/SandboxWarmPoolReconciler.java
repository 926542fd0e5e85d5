package io.sandboxd.controller.reconcile;

import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import io.sandboxd.controller.core.Blueprints;
import io.sandboxd.controller.core.CreateBody;
import io.sandboxd.controller.core.JsonPatch;
import io.sandboxd.controller.core.Keys;
import io.sandboxd.controller.core.NameHash;
import io.sandboxd.controller.core.Ownership;
import io.sandboxd.controller.core.PoolMemberChanges;
import io.sandboxd.controller.core.PoolSandboxes;
import io.sandboxd.controller.model.Sandbox;
import io.sandboxd.controller.model.SandboxTemplate;
import io.sandboxd.controller.model.SandboxWarmPool;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Keeps spec.replicas Sandboxes built from the pool's template (as upstream agent-sandbox does). */
public class SandboxWarmPoolReconciler implements Reconciler<SandboxWarmPool> {
    private static final Logger LOG = LoggerFactory.getLogger(SandboxWarmPoolReconciler.class);
    static final String POOL_INDEX = "warm-pool-sandbox";
    static final String TEMPLATE_INDEX = "pool-template";
    static final int MAX_BATCH = 300;
    static final Duration EXPECTATION_TIMEOUT = Duration.ofMinutes(5);

    private final WarmPoolLedger ledger;
    private final StatusMemo<SandboxWarmPool.Status> written = new StatusMemo<>();

    /** For the primary's event source: our own status writes' echoes set off no reconcile. */
    public io.javaoperatorsdk.operator.processing.event.source.filter.OnUpdateFilter<SandboxWarmPool> primaryUpdates() {
        return new OwnStatusEchoes<>(written, SandboxWarmPool::getStatus);
    }

    private final TemplateHashMemo hashes = new TemplateHashMemo();
    private final MemberSpecMemo memberSpecs = new MemberSpecMemo();
    private final SharedSandboxes sandboxes;
    private InformerEventSource<SandboxTemplate, SandboxWarmPool> templates;
    /** Creates and deletes sent but not yet seen in the cache, per pool (upstream's expectations). */
    private final Map<String, Map<String, Instant>> pendingCreates = new ConcurrentHashMap<>();

    private final Map<String, Map<String, Instant>> pendingDeletes = new ConcurrentHashMap<>();

    /**
     * @param ledger the claims' reservations; a member a claim is adopting is never deleted here
     * @param sandboxes the Sandbox controller's watch, which this controller reads and hears from
     */
    public SandboxWarmPoolReconciler(WarmPoolLedger ledger, SharedSandboxes sandboxes) {
        this.ledger = ledger;
        this.sandboxes = sandboxes;
    }

    @Override
    public List<EventSource<?, SandboxWarmPool>> prepareEventSources(EventSourceContext<SandboxWarmPool> ctx) {
        ctx.getPrimaryCache()
                .addIndexer(
                        TEMPLATE_INDEX,
                        p -> List.of(p.getMetadata().getNamespace() + "/"
                                + (p.getSpec().getSandboxTemplateRef() == null
                                        ? ""
                                        : p.getSpec().getSandboxTemplateRef().getName())));
        sandboxes.addIndexer(POOL_INDEX, sb -> {
            Map<String, String> l = sb.getMetadata().getLabels();
            String v = l == null ? null : l.get(Keys.WARM_POOL_SANDBOX);
            return v == null ? List.of() : List.of(sb.getMetadata().getNamespace() + "/" + v);
        });
        // Every event counts here, the claim controller's own writes too: an adoption moves a member out.
        SharedSandboxEvents<SandboxWarmPool> memberEvents = new SharedSandboxEvents<>(
                "pool-sandboxes",
                "pool controller",
                sandboxes,
                SandboxWarmPoolReconciler::poolsOf,
                (old, sb, news) -> old == null || PoolMemberChanges.relevant(sb, old),
                this::members);
        templates = new InformerEventSource<>(
                InformerEventSourceConfiguration.from(SandboxTemplate.class, SandboxWarmPool.class)
                        .withName("pool-templates")
                        .withSecondaryToPrimaryMapper(t -> ctx
                                .getPrimaryCache()
                                .byIndex(
                                        TEMPLATE_INDEX,
                                        t.getMetadata().getNamespace() + "/"
                                                + t.getMetadata().getName())
                                .stream()
                                .map(ResourceID::fromResource)
                                .collect(Collectors.toSet()))
                        .build(),
                ctx);
        return List.of(memberEvents, templates);
    }

    /**
     * The controlling pool, or the pool that built it: adoption moves the controller to a claim, and
     * the pool must hear about that to replenish.
     */
    static Set<ResourceID> poolsOf(Sandbox sb) {
        Set<ResourceID> ids = new HashSet<>();
        OwnerReference ctl = Ownership.controllerOf(sb);
        String ns = sb.getMetadata().getNamespace();
        if (ctl != null && SandboxWarmPool.KIND.equals(ctl.getKind())) ids.add(new ResourceID(ctl.getName(), ns));
        Map<String, String> a = sb.getMetadata().getAnnotations();
        if (a != null && a.get(Keys.ORIGIN_POOL) != null) ids.add(new ResourceID(a.get(Keys.ORIGIN_POOL), ns));
        return ids;
    }

    /** Members carrying this pool's label (any owner), from the cache. */
    List<Sandbox> members(SandboxWarmPool pool) {
        return sandboxes.byIndex(
                POOL_INDEX,
                pool.getMetadata().getNamespace() + "/"
                        + NameHash.of(pool.getMetadata().getName()));
    }

    @Override
    public UpdateControl<SandboxWarmPool> reconcile(SandboxWarmPool pool, Context<SandboxWarmPool> ctx) {
        if (pool.getMetadata().getDeletionTimestamp() != null) return UpdateControl.noUpdate();
        KubernetesClient client = ctx.getClient();
        String ns = pool.getMetadata().getNamespace();
        String key = ns + "/" + pool.getMetadata().getName();
        Instant now = Instant.now();
        String tplName = pool.getSpec().getSandboxTemplateRef() == null
                ? null
                : pool.getSpec().getSandboxTemplateRef().getName();
        SandboxTemplate tpl = tplName == null
                ? null
                : templates.get(new ResourceID(tplName, ns)).orElse(null);

        Map<String, Instant> creates = pendingCreates.computeIfAbsent(key, k -> new ConcurrentHashMap<>());
        Map<String, Instant> deletes = pendingDeletes.computeIfAbsent(key, k -> new ConcurrentHashMap<>());
        List<Sandbox> all = members(pool);
        Set<String> seen = all.stream().map(s -> s.getMetadata().getName()).collect(Collectors.toSet());
        // Seen means in the cache at all: a new member may already have been adopted (and lost the
        // pool label) before this pass ran.
        creates.keySet()
                .removeIf(n -> seen.contains(n)
                        || sandboxes.get(new ResourceID(n, ns)).isPresent()
                        || creates.get(n).plus(EXPECTATION_TIMEOUT).isBefore(now));
        deletes.keySet()
                .removeIf(n -> !seen.contains(n)
                        || deletes.get(n).plus(EXPECTATION_TIMEOUT).isBefore(now));

        List<Sandbox> active = new ArrayList<>();
        int terminating = 0;
        for (Sandbox sb : all) {
            String name = sb.getMetadata().getName();
            if (sb.getMetadata().getDeletionTimestamp() != null || deletes.containsKey(name)) {
                terminating++;
                continue;
            }
            OwnerReference ctl = Ownership.controllerOf(sb);
            if (ctl != null && !ctl.getUid().equals(pool.getMetadata().getUid())) continue;
            if (tpl != null && ctl == null) {
                if (Blueprints.stale(sb, tpl)) {
                    if (delete(client, sb, deletes, "stale orphan")) terminating++;
                } else {
                    adoptOrphan(client, sb, pool);
                    active.add(sb);
                }
                continue;
            }
            if (tpl != null && pool.getSpec().recreate() && Blueprints.stale(sb, tpl) && !ledger.reserved(sb)) {
                if (delete(client, sb, deletes, "stale under Recreate")) terminating++;
                continue;
            }
            if (!"warm".equals(sb.getMetadata().getLabels().get(Keys.LAUNCH_TYPE)) && !ledger.reserved(sb)) {
                Kube.patch(
                        client,
                        sb,
                        new JsonPatch()
                                .mapEntry("/metadata/labels", sb.getMetadata().getLabels(), Keys.LAUNCH_TYPE, "warm"));
            }
            active.add(sb);
        }

        int desired = pool.getSpec().desired();
        int inFlight = creates.size();
        int have = active.size() + inFlight + terminating;
        boolean waiting = inFlight > 0 || !deletes.isEmpty();
        if (tpl != null && have < desired && !waiting) {
            int n = Math.min(desired - have, MAX_BATCH);
            Blueprints.Hashes h = hashes.of(tpl);
            MemberSpecMemo.MemberSpec spec = memberSpecs.of(pool, tpl, h);
            for (int i = 0; i < n; i++) {
                Sandbox sb = PoolSandboxes.member(
                        pool,
                        tpl,
                        h,
                        PoolSandboxes.memberName(pool.getMetadata().getName()),
                        spec.spec());
                try {
                    CreateRequests.createUnread(client, sb, CreateBody.of(sb, spec.json()));
                    creates.put(sb.getMetadata().getName(), now);
                } catch (KubernetesClientException e) {
                    if (!Kube.conflict(e)) throw e; // a name clash: the next pass tries another name
                }
            }
            LOG.atInfo()
                    .addKeyValue("pool", key)
                    .addKeyValue("created", n)
                    .addKeyValue("desired", desired)
                    .log("replenished");
        } else if (active.size() > desired && !waiting) {
            int reserved = (int) active.stream().filter(ledger::reserved).count();
            for (Sandbox sb : PoolSandboxes.excess(
                    active.stream().filter(m -> !ledger.reserved(m)).toList(), Math.max(0, desired - reserved))) {
                if (delete(client, sb, deletes, "scale down")) active.remove(sb);
            }
        }

        SandboxWarmPool.Status st = new SandboxWarmPool.Status();
        st.setReplicas(active.size());
        st.setReadyReplicas((int) active.stream().filter(PoolSandboxes::ready).count());
        st.setSelector(
                Keys.WARM_POOL_SANDBOX + "=" + NameHash.of(pool.getMetadata().getName()));
        st.setObservedGeneration(pool.getMetadata().getGeneration());
        if (!st.equals(written.current(pool, pool.getStatus()))) {
            Map<String, Object> s = new LinkedHashMap<>();
            s.put("replicas", st.getReplicas());
            s.put("readyReplicas", st.getReadyReplicas());
            s.put("selector", st.getSelector());
            if (st.getObservedGeneration() != null) s.put("observedGeneration", st.getObservedGeneration());
            try {
                written.write(pool, st, () -> Kube.patchStatus(client, pool, new JsonPatch().add("/status", s)));
            } catch (KubernetesClientException e) {
                if (!Kube.notFound(e)) throw e;
            }
        }
        // Expectations are met by watch events; the timer is only a safety net against a lost event.
        return waiting || !creates.isEmpty()
                ? UpdateControl.<SandboxWarmPool>noUpdate().rescheduleAfter(Duration.ofSeconds(2))
                : UpdateControl.noUpdate();
    }

    private void adoptOrphan(KubernetesClient client, Sandbox sb, SandboxWarmPool pool) {
        JsonPatch p = new JsonPatch()
                .add("/metadata/ownerReferences", List.of(Ownership.controllerRef(pool)))
                .mapEntry("/metadata/labels", sb.getMetadata().getLabels(), Keys.LAUNCH_TYPE, "warm");
        Kube.patch(client, sb, p);
    }

    /**
     * Deletes a member only at the version this pass decided on (a DeleteOptions precondition): a
     * claim may adopt it between our cache read and the delete (the ledger's reservation covers
     * only claims that took it before the check), and an adopted Sandbox must never be deleted
     * by its old pool. A 409 means it changed; its event sets off the next pass, which decides again.
     * Returns whether the delete was sent and taken (or the member is gone already).
     */
    private boolean delete(KubernetesClient client, Sandbox sb, Map<String, Instant> deletes, String why) {
        try {
            client.resources(Sandbox.class)
                    .inNamespace(sb.getMetadata().getNamespace())
                    .withName(sb.getMetadata().getName())
                    .lockResourceVersion(sb.getMetadata().getResourceVersion())
                    .delete();
            deletes.put(sb.getMetadata().getName(), Instant.now());
            LOG.atInfo()
                    .addKeyValue(
                            "sandbox",
                            sb.getMetadata().getNamespace() + "/"
                                    + sb.getMetadata().getName())
                    .addKeyValue("reason", why)
                    .log("pool deleted member");
            return true;
        } catch (KubernetesClientException e) {
            if (Kube.conflict(e)) {
                LOG.atDebug()
                        .addKeyValue("sandbox", sb.getMetadata().getName())
                        .log("member changed before its delete; left to the next pass: {}", Kube.message(e));
                return false;
            }
            if (!Kube.notFound(e)) throw e;
            return true;
        }
    }
}

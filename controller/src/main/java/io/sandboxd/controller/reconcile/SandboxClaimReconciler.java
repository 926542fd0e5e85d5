package io.sandboxd.controller.reconcile;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.DeletionPropagation;
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
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.sandboxd.controller.core.ClaimConditions;
import io.sandboxd.controller.core.ClaimSandboxChanges;
import io.sandboxd.controller.core.ClaimSandboxes;
import io.sandboxd.controller.core.ClaimSandboxes.ClaimError;
import io.sandboxd.controller.core.Conditions;
import io.sandboxd.controller.core.Expiry;
import io.sandboxd.controller.core.JsonPatch;
import io.sandboxd.controller.core.Keys;
import io.sandboxd.controller.core.Ownership;
import io.sandboxd.controller.core.SandboxConditions;
import io.sandboxd.controller.core.StatusOnlyChanges;
import io.sandboxd.controller.core.WarmMembers;
import io.sandboxd.controller.model.Conds;
import io.sandboxd.controller.model.Sandbox;
import io.sandboxd.controller.model.SandboxClaim;
import io.sandboxd.controller.model.SandboxTemplate;
import io.sandboxd.controller.model.SandboxWarmPool;
import java.time.Clock;
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

/**
 * Binds a SandboxClaim to a Sandbox (as upstream agent-sandbox does): a Ready warm-pool member is adopted by moving
 * its controller ownerReference to the claim (no Pod is created); otherwise a cold Sandbox is
 * built from the pool's template.
 */
public class SandboxClaimReconciler implements Reconciler<SandboxClaim> {
    private static final Logger LOG = LoggerFactory.getLogger(SandboxClaimReconciler.class);
    static final String POOL_REF_INDEX = "claim-pool";
    /**
     * Lost adoption races retried at once on the next member before the claim is requeued (never
     * sent cold: a lost race means contention, not an empty pool). With the ledger the races
     * left are with other writers of the member, so more than one in a row is rare.
     */
    static final int MAX_ADOPTION_TRIES = 8;

    private final Clock clock;
    private final Timer warmBind;
    private final Timer coldBind;
    private final SharedSandboxes sandboxes;
    private InformerEventSource<SandboxWarmPool, SandboxClaim> pools;
    private InformerEventSource<SandboxTemplate, SandboxClaim> templates;
    private final WarmPoolLedger ledger;
    private final Map<String, Instant> firstSeen = new ConcurrentHashMap<>();
    private final StatusMemo<SandboxClaim.Status> written = new StatusMemo<>();

    /** For the primary's event source: our own status writes' echoes set off no reconcile. */
    public io.javaoperatorsdk.operator.processing.event.source.filter.OnUpdateFilter<SandboxClaim> primaryUpdates() {
        return new OwnStatusEchoes<>(written, SandboxClaim::getStatus);
    }

    /**
     * @param ledger the pools' Ready, unclaimed members, which claims take from
     * @param sandboxes the Sandbox controller's watch, which this controller reads and hears from
     */
    public SandboxClaimReconciler(
            Clock clock, MeterRegistry registry, WarmPoolLedger ledger, SharedSandboxes sandboxes) {
        this.clock = clock;
        this.ledger = ledger;
        this.sandboxes = sandboxes;
        this.warmBind = bindTimer(registry, "warm");
        this.coldBind = bindTimer(registry, "cold");
    }

    /**
     * Histogram buckets of claim-to-bound ({@code sandboxd_claim_bind_seconds}): a warm bind is one
     * patch and one status write, 5-60 ms when the controller keeps up (p50 5.9 ms, p99 61 ms at 50
     * claims/s on the API stand-in), up to seconds when claims queue behind a burst (p50 0.9 s at 300
     * claims/s); 30 and 60 s catch claims stuck behind retries. Buckets, unlike client-side
     * percentiles, add up across controller replicas and restarts.
     */
    static final Duration[] BIND_BUCKETS = {
        Duration.ofMillis(5),
        Duration.ofMillis(10),
        Duration.ofMillis(25),
        Duration.ofMillis(50),
        Duration.ofMillis(100),
        Duration.ofMillis(250),
        Duration.ofMillis(500),
        Duration.ofSeconds(1),
        Duration.ofMillis(2500),
        Duration.ofSeconds(5),
        Duration.ofSeconds(10),
        Duration.ofSeconds(30),
        Duration.ofSeconds(60)
    };

    private static Timer bindTimer(MeterRegistry registry, String launchType) {
        return Timer.builder("sandboxd_claim_bind_seconds")
                .tag("launch_type", launchType)
                .description("claim creation to Sandbox assigned")
                .serviceLevelObjectives(BIND_BUCKETS)
                .register(registry);
    }

    @Override
    public List<EventSource<?, SandboxClaim>> prepareEventSources(EventSourceContext<SandboxClaim> ctx) {
        ctx.getPrimaryCache()
                .addIndexer(
                        POOL_REF_INDEX,
                        c -> List.of(c.getMetadata().getNamespace() + "/"
                                + (c.getSpec().getWarmPoolRef() == null
                                        ? ""
                                        : c.getSpec().getWarmPoolRef().getName())));
        var primary = ctx.getPrimaryCache();
        // A Sandbox's add, delete or relevant update reconciles the claim that controls it, except
        // the echo of this controller's own write; a claim's Sandboxes include its recent writes.
        SharedSandboxEvents<SandboxClaim> sandboxEvents = new SharedSandboxEvents<>(
                "claim-sandboxes",
                "claim controller",
                sandboxes,
                SharedSandboxes.CONTROLLING_CLAIM,
                (old, sb, news) -> news && (old == null || ClaimSandboxChanges.relevant(sb, old)),
                sandboxes::controlledBy);
        pools = new InformerEventSource<>(
                InformerEventSourceConfiguration.from(SandboxWarmPool.class, SandboxClaim.class)
                        .withName("claim-pools")
                        // A claim reads a pool's identity and spec, never its status; and the pool's
                        // status moves with every adoption and refill, each time setting off a pass of
                        // every claim not yet seen bound in the cache.
                        .withOnUpdateFilter((now, old) -> !StatusOnlyChanges.onlyStatusChanged(now, old))
                        .withSecondaryToPrimaryMapper(p -> unboundClaims(primary.byIndex(
                                POOL_REF_INDEX,
                                p.getMetadata().getNamespace() + "/"
                                        + p.getMetadata().getName())))
                        .build(),
                ctx);
        templates = new InformerEventSource<>(
                InformerEventSourceConfiguration.from(SandboxTemplate.class, SandboxClaim.class)
                        .withName("claim-templates")
                        .withSecondaryToPrimaryMapper(t -> {
                            Set<ResourceID> ids = new HashSet<>();
                            pools.list(
                                            t.getMetadata().getNamespace(),
                                            p -> p.getSpec().getSandboxTemplateRef() != null
                                                    && t.getMetadata()
                                                            .getName()
                                                            .equals(p.getSpec()
                                                                    .getSandboxTemplateRef()
                                                                    .getName()))
                                    .forEach(p -> ids.addAll(unboundClaims(primary.byIndex(
                                            POOL_REF_INDEX,
                                            p.getMetadata().getNamespace() + "/"
                                                    + p.getMetadata().getName()))));
                            return ids;
                        })
                        .build(),
                ctx);
        return List.of(sandboxEvents, pools, templates);
    }

    private static Set<ResourceID> unboundClaims(List<SandboxClaim> claims) {
        return claims.stream()
                .filter(c -> c.getStatus() == null || c.getStatus().getSandbox() == null)
                .map(ResourceID::fromResource)
                .collect(Collectors.toSet());
    }

    @Override
    public UpdateControl<SandboxClaim> reconcile(SandboxClaim claim, Context<SandboxClaim> ctx) {
        if (claim.getMetadata().getDeletionTimestamp() != null) return UpdateControl.noUpdate();
        KubernetesClient client = ctx.getClient();
        Instant now = clock.instant();
        if (claim.getStatus() == null || claim.getStatus().getSandbox() == null)
            firstSeen.putIfAbsent(claim.getMetadata().getUid(), now);
        Long gen = claim.getMetadata().getGeneration();
        SandboxClaim.Status st = new SandboxClaim.Status(written.current(claim, claim.getStatus()));
        Instant expireAt = expireAt(claim, st);

        if (expireAt != null && !now.isBefore(expireAt)) return expire(claim, st, ctx, now);

        Sandbox sb = null;
        String reason = null;
        String message = null;
        boolean retry = false;
        Duration requeue = null;
        try {
            sb = getOrCreate(claim, ctx, client, st);
        } catch (ClaimError e) {
            reason = e.reason;
            message = "ReconcilerError".equals(e.reason) ? "Error seen: " + e.getMessage() : e.getMessage();
            retry = e.retry;
            switch (e.reason) {
                case "WarmPoolNotFound", "TemplateNotFound" -> requeue = Duration.ofMinutes(1);
                case "SandboxCreatePending" -> requeue = Duration.ofMillis(200);
                case "SandboxAdoptionPending" -> requeue = Duration.ofMillis(1);
                default -> {}
            }
        } catch (KubernetesClientException e) {
            reason = "ReconcilerError";
            message = "Error seen: " + Kube.message(e);
            retry = true;
        }
        if (sb != null) {
            st.setSandbox(new SandboxClaim.SandboxRef(
                    sb.getMetadata().getName(),
                    sb.getStatus() == null || sb.getStatus().getPodIPs() == null
                            ? null
                            : new ArrayList<>(sb.getStatus().getPodIPs())));
        } else if (reason == null) {
            st.setSandbox(null);
        }
        ClaimConditions.apply(st.getConditions(), sb, reason, message, false, gen, now);
        writeStatus(ctx, claim, st);
        if (retry) throw new ReconcileException(message);
        UpdateControl<SandboxClaim> out = UpdateControl.noUpdate();
        // Again, from the conditions just written: this pass may have marked the claim Finished, which
        // starts ttlSecondsAfterFinished. The echo of that status write sets off no pass of its own
        // (OwnStatusEchoes), so this one schedules the expiry.
        expireAt = expireAt(claim, st);
        if (expireAt != null) {
            Duration left = Duration.between(clock.instant(), expireAt);
            requeue = requeue == null || left.compareTo(requeue) < 0 ? left : requeue;
        }
        if (requeue != null) out.rescheduleAfter(requeue.isNegative() ? Duration.ofMillis(1) : requeue);
        return out;
    }

    // ---- binding -----------------------------------------------------------------------------

    private Sandbox cached(String ns, String name) {
        return sandboxes.get(new ResourceID(name, ns)).orElse(null);
    }

    private Sandbox getOrCreate(
            SandboxClaim claim, Context<SandboxClaim> ctx, KubernetesClient client, SandboxClaim.Status st) {
        String ns = claim.getMetadata().getNamespace();
        if (st.getSandbox() != null && st.getSandbox().getName() != null) {
            Sandbox sb = cached(ns, st.getSandbox().getName());
            if (sb != null && Ownership.controlledBy(sb, claim)) return sb;
        }
        // Bound earlier but the status write was lost: the Sandbox we control says so.
        for (Sandbox sb : ctx.getSecondaryResources(Sandbox.class)) {
            if (Ownership.controlledBy(sb, claim) && sb.getMetadata().getDeletionTimestamp() == null) return sb;
        }
        String assigned = annotation(claim, Keys.SANDBOX_NAME);
        SandboxWarmPool pool = null;
        SandboxTemplate tpl = null;
        if (assigned != null) {
            Sandbox sb = cached(ns, assigned);
            if (sb != null && Ownership.controlledBy(sb, claim)) return sb;
            pool = pool(claim);
            tpl = template(pool);
            if (sb != null && WarmMembers.adoptable(sb, pool, tpl)) {
                Sandbox done = completeAdoption(client, claim, sb, tpl);
                if (done != null) return done;
            }
            setClaimAnnotation(client, claim, Keys.SANDBOX_NAME, null);
        }
        // From the cache only: a Sandbox of the claim's name that is not there yet surfaces as a 409
        // on the cold create below (SandboxCreatePending), and the warm path never uses that name.
        Sandbox same = cached(ns, claim.getMetadata().getName());
        if (same != null) {
            if (Ownership.controlledBy(same, claim)) return same;
            throw new ClaimError(
                    "ReconcilerError",
                    "sandbox \"" + same.getMetadata().getName() + "\" is not controlled by claim \""
                            + claim.getMetadata().getName()
                            + "\". Please use a different claim name or delete the sandbox manually",
                    true);
        }
        if (pool == null) pool = pool(claim);
        if (tpl == null) tpl = template(pool);
        String invalid = ClaimSandboxes.validateMetadata(claim);
        if (invalid != null) throw new ClaimError("InvalidMetadata", invalid, false);

        if (!ClaimSandboxes.forcesCold(claim)) {
            Sandbox warm = tryAdopt(client, claim, pool, tpl);
            if (warm != null) return warm;
        }
        Sandbox want = ClaimSandboxes.cold(claim, tpl);
        try {
            Sandbox created = CreateRequests.create(client, want);
            sandboxes.wrote(created);
            recordBind(claim, coldBind);
            LOG.atInfo()
                    .addKeyValue("claim", ns + "/" + claim.getMetadata().getName())
                    .addKeyValue("launchType", "cold")
                    .log("SandboxProvisioned: created Sandbox");
            return created;
        } catch (KubernetesClientException e) {
            if (Kube.conflict(e)) {
                throw new ClaimError(
                        "SandboxCreatePending", "Sandbox already created; waiting for cache to converge", false);
            }
            throw e;
        }
    }

    private SandboxWarmPool pool(SandboxClaim claim) {
        String name = claim.getSpec().getWarmPoolRef() == null
                ? null
                : claim.getSpec().getWarmPoolRef().getName();
        SandboxWarmPool p = name == null
                ? null
                : pools.get(new ResourceID(name, claim.getMetadata().getNamespace()))
                        .orElse(null);
        if (p == null) throw new ClaimError("WarmPoolNotFound", "SandboxWarmPool \"" + name + "\" not found", false);
        return p;
    }

    private SandboxTemplate template(SandboxWarmPool pool) {
        String name = pool.getSpec().getSandboxTemplateRef() == null
                ? null
                : pool.getSpec().getSandboxTemplateRef().getName();
        SandboxTemplate t = name == null
                ? null
                : templates
                        .get(new ResourceID(name, pool.getMetadata().getNamespace()))
                        .orElse(null);
        if (t == null) throw new ClaimError("TemplateNotFound", "SandboxTemplate \"" + name + "\" not found", false);
        return t;
    }

    /**
     * The oldest Ready member from the ledger, adopted by one patch guarded by its resourceVersion.
     * A lost race moves on to the next member at once (no backoff); null when the pool has none.
     */
    private Sandbox tryAdopt(KubernetesClient client, SandboxClaim claim, SandboxWarmPool pool, SandboxTemplate tpl) {
        for (int tries = 0; tries < MAX_ADOPTION_TRIES; tries++) {
            Sandbox member = ledger.take(
                    pool.getMetadata().getNamespace(),
                    pool.getMetadata().getName(),
                    sb -> WarmMembers.adoptable(sb, pool, tpl));
            if (member == null) return null;
            Sandbox done;
            try {
                done = completeAdoption(client, claim, member, tpl);
            } catch (RuntimeException e) {
                ledger.lost(member);
                throw e;
            }
            if (done != null) {
                ledger.adopted(member);
                return done;
            }
            ledger.lost(member);
        }
        throw new ClaimError(
                "SandboxAdoptionPending", "lost " + MAX_ADOPTION_TRIES + " adoption races in a row; retrying", false);
    }

    /** One JSON patch guarded by the member's resourceVersion: exactly one claim can win it. */
    private Sandbox completeAdoption(KubernetesClient client, SandboxClaim claim, Sandbox member, SandboxTemplate tpl) {
        ClaimSandboxes.Adoption want = ClaimSandboxes.adoption(member, claim, tpl);
        JsonPatch p = new JsonPatch()
                .test("/metadata/resourceVersion", member.getMetadata().getResourceVersion())
                .add("/metadata/labels", want.labels())
                .add("/metadata/annotations", want.annotations())
                .add("/metadata/ownerReferences", want.ownerReferences())
                .add("/spec/podTemplate/metadata", want.podTemplateMetadata());
        try {
            Sandbox done = Kube.patch(client, member, p);
            sandboxes.wrote(done);
            recordBind(claim, warmBind);
            LOG.atInfo()
                    .addKeyValue(
                            "claim",
                            claim.getMetadata().getNamespace() + "/"
                                    + claim.getMetadata().getName())
                    .addKeyValue("sandbox", member.getMetadata().getName())
                    .addKeyValue("launchType", "warm")
                    .log("SandboxAdopted: adopted warm pool Sandbox");
            return done;
        } catch (KubernetesClientException e) {
            // 409/422: another writer changed it first (the resourceVersion test failed); 404: gone.
            // Anything else may have been applied: the next pass finds the Sandbox if we now control it.
            if (!Kube.conflict(e) && !Kube.notFound(e) && e.getCode() != 422) throw e;
            LOG.atDebug()
                    .addKeyValue("sandbox", member.getMetadata().getName())
                    .log("adoption lost: {}", Kube.message(e));
            return null;
        }
    }

    /** First-observed to bound (creationTimestamp has only second resolution). */
    private void recordBind(SandboxClaim claim, Timer timer) {
        Instant seen = firstSeen.remove(claim.getMetadata().getUid());
        if (seen != null) timer.record(Duration.between(seen, clock.instant()).abs());
    }

    // ---- expiry (§5.7) -----------------------------------------------------------------------

    static Instant expireAt(SandboxClaim claim, SandboxClaim.Status st) {
        var lc = claim.getSpec().getLifecycle();
        if (lc == null) return null;
        Instant at = Expiry.parse(lc.getShutdownTime());
        if (lc.getTtlSecondsAfterFinished() != null) {
            Condition f = Conds.find(st.getConditions(), SandboxConditions.FINISHED);
            if (f != null && "True".equals(f.getStatus()) && f.getLastTransitionTime() != null) {
                Instant ttl = Expiry.parse(f.getLastTransitionTime()).plusSeconds(lc.getTtlSecondsAfterFinished());
                at = at == null || ttl.isBefore(at) ? ttl : at;
            }
        }
        return at;
    }

    private UpdateControl<SandboxClaim> expire(
            SandboxClaim claim, SandboxClaim.Status st, Context<SandboxClaim> ctx, Instant now) {
        KubernetesClient client = ctx.getClient();
        Long gen = claim.getMetadata().getGeneration();
        String ns = claim.getMetadata().getNamespace();
        Condition ready = Conds.find(st.getConditions(), SandboxConditions.READY);
        if (ready == null || !"ClaimExpired".equals(ready.getReason())) {
            Conditions.set(
                    st.getConditions(),
                    Conditions.of(
                            SandboxConditions.READY,
                            Conditions.FALSE,
                            "ClaimExpired",
                            "Claim expired. Sandbox cleanup initiated.",
                            gen),
                    now);
            writeStatus(ctx, claim, st);
            LOG.atInfo()
                    .addKeyValue("claim", ns + "/" + claim.getMetadata().getName())
                    .log("ClaimExpired");
            return UpdateControl.<SandboxClaim>noUpdate().rescheduleAfter(Duration.ofMillis(1));
        }
        String policy = claim.getSpec().getLifecycle().getShutdownPolicy();
        var res = client.resources(SandboxClaim.class)
                .inNamespace(ns)
                .withName(claim.getMetadata().getName());
        if ("Delete".equals(policy)) {
            res.delete();
            return UpdateControl.noUpdate();
        }
        if ("DeleteForeground".equals(policy)) {
            res.withPropagationPolicy(DeletionPropagation.FOREGROUND).delete();
            return UpdateControl.noUpdate();
        }
        String name = st.getSandbox() != null && st.getSandbox().getName() != null
                ? st.getSandbox().getName()
                : claim.getMetadata().getName();
        Sandbox sb =
                client.resources(Sandbox.class).inNamespace(ns).withName(name).get();
        if (sb != null && Ownership.controlledBy(sb, claim)) {
            client.resources(Sandbox.class).inNamespace(ns).withName(name).delete();
            sb = null;
        }
        if (sb == null) st.setSandbox(null);
        writeStatus(ctx, claim, st);
        return UpdateControl.noUpdate();
    }

    // ---- writes ------------------------------------------------------------------------------

    private void writeStatus(Context<SandboxClaim> ctx, SandboxClaim claim, SandboxClaim.Status st) {
        SandboxClaim.Status current = written.current(claim, claim.getStatus());
        SandboxClaim.Status old = current == null ? new SandboxClaim.Status() : current;
        if (st.equals(old)) return;
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("conditions", st.getConditions());
        if (st.getSandbox() != null) s.put("sandbox", st.getSandbox());
        try {
            written.write(claim, st, () -> Kube.patchStatus(ctx.getClient(), claim, new JsonPatch().add("/status", s)));
        } catch (KubernetesClientException e) {
            if (!Kube.notFound(e)) throw e;
        }
    }

    private static void setClaimAnnotation(KubernetesClient client, SandboxClaim claim, String key, String value) {
        JsonPatch p = new JsonPatch()
                .mapEntry("/metadata/annotations", claim.getMetadata().getAnnotations(), key, value);
        if (p.isEmpty()) return;
        Kube.patch(client, claim, p);
    }

    private static String annotation(SandboxClaim c, String key) {
        return c.getMetadata().getAnnotations() == null
                ? null
                : c.getMetadata().getAnnotations().get(key);
    }
}

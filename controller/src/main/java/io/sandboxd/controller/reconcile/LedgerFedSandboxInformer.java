package io.sandboxd.controller.reconcile;

import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import io.sandboxd.controller.model.Sandbox;
import io.sandboxd.controller.model.SandboxClaim;

/**
 * The claim controller's Sandbox informer, which also keeps the {@link WarmPoolLedger}: each
 * event reaches the ledger before JOSDK hands it on, so a reconcile it triggers sees it there.
 */
final class LedgerFedSandboxInformer extends InformerEventSource<Sandbox, SandboxClaim> {
    private final WarmPoolLedger ledger;

    LedgerFedSandboxInformer(
            InformerEventSourceConfiguration<Sandbox> config,
            EventSourceContext<SandboxClaim> ctx,
            WarmPoolLedger ledger) {
        super(config, ctx);
        this.ledger = ledger;
    }

    @Override
    public void onAdd(Sandbox sb) {
        ledger.upsert(sb);
        super.onAdd(sb);
    }

    @Override
    public void onUpdate(Sandbox old, Sandbox sb) {
        ledger.upsert(sb);
        super.onUpdate(old, sb);
    }

    @Override
    public synchronized void onDelete(Sandbox sb, boolean deletedFinalStateUnknown) {
        ledger.delete(sb);
        super.onDelete(sb, deletedFinalStateUnknown);
    }
}

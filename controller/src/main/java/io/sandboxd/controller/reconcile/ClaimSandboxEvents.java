package io.sandboxd.controller.reconcile;

import io.javaoperatorsdk.operator.OperatorException;
import io.javaoperatorsdk.operator.processing.event.Event;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.AbstractEventSource;
import io.sandboxd.controller.core.ClaimSandboxChanges;
import io.sandboxd.controller.core.Keys;
import io.sandboxd.controller.model.Sandbox;
import io.sandboxd.controller.model.SandboxClaim;
import java.util.HashSet;
import java.util.Set;

/**
 * The claim controller's Sandbox event source, with no watch of its own ({@link SharedSandboxes}):
 * a Sandbox's add, delete or relevant update ({@link ClaimSandboxChanges}) sets off a reconcile of
 * the claim that controls it, except the echo of the claim controller's own write. Its secondary
 * resources are the Sandboxes a claim controls, the claim controller's recent writes included.
 */
final class ClaimSandboxEvents extends AbstractEventSource<Sandbox, SandboxClaim>
        implements SharedSandboxes.SandboxListener {
    private final SharedSandboxes source;
    private final OwnerOrSameNameMapper<Sandbox> toClaims =
            new OwnerOrSameNameMapper<>(Keys.EXT_GROUP, SandboxClaim.KIND, false);

    ClaimSandboxEvents(SharedSandboxes source) {
        super(Sandbox.class, "claim-sandboxes");
        this.source = source;
        source.listen(this);
    }

    @Override
    public void start() throws OperatorException {
        source.awaitSynced("claim controller");
        super.start();
    }

    @Override
    public void added(Sandbox sb, boolean news) {
        if (news) notifyClaims(sb);
    }

    @Override
    public void updated(Sandbox old, Sandbox sb, boolean news) {
        if (news && ClaimSandboxChanges.relevant(sb, old)) notifyClaims(sb);
    }

    @Override
    public void deleted(Sandbox sb) {
        notifyClaims(sb);
    }

    private void notifyClaims(Sandbox sb) {
        if (!isRunning()) return; // before start every claim's first pass reads the cache anyway
        for (ResourceID claim : toClaims.toPrimaryResourceIDs(sb))
            getEventHandler().handleEvent(new Event(claim));
    }

    @Override
    public Set<Sandbox> getSecondaryResources(SandboxClaim claim) {
        return new HashSet<>(source.controlledBy(claim));
    }
}

/**
 * The four kinds (agents.x-k8s.io and extensions.agents.x-k8s.io) as Java classes, read and written
 * by the controller.
 *
 * <p>Every class here, each kind and its spec, status and their parts, ignores fields it does not
 * know ({@code ignoreUnknown}): an API server whose CRDs are newer than this controller (they are
 * installed first in an upgrade) sends them, and a class that refused them would stop the whole
 * informer for that kind, so no object of it would be reconciled. Upstream's Go types ignore them
 * too (encoding/json). A status write replaces the whole status, so a status field that only a
 * newer controller knows is dropped by this one, as upstream's would drop it.
 */
package io.sandboxd.controller.model;

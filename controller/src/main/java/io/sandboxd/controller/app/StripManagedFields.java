package io.sandboxd.controller.app;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

/**
 * A Jackson mix-in on {@code ObjectMeta}: {@code metadata.managedFields} is skipped when the
 * controller reads an object, as controller-runtime's {@code TransformStripManagedFields} does for
 * Go controllers. No reconciler reads it, yet an API server sends it with every object and watch
 * event (one entry per field manager, each a tree of the fields it set), and fabric8 would bind it
 * into objects that the informer caches keep for every Sandbox, Pod and claim. Writes are not
 * affected: an update without managedFields leaves the server's unchanged.
 */
@JsonIgnoreProperties(value = "managedFields", allowGetters = true)
abstract class StripManagedFields {}

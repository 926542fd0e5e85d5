package io.sandboxd.client;

import java.util.List;

/**
 * One page of a deep listing.
 *
 * @param path       the listed directory's real path, {@code /a}
 * @param nextCursor where the next page starts ({@link RemoteFiles#list}); null on the last page
 */
public record TreePage(String path, List<TreeEntry> entries, String nextCursor) {}

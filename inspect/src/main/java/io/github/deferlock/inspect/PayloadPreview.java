package io.github.deferlock.inspect;

import java.util.Objects;

/**
 * The start of a stored payload, cut to the inspector's preview limit at a character boundary. The text is
 * the stored JSON as is: it is attacker-controlled input, so a page or terminal that shows it must escape it.
 * Immutable.
 *
 * @param text the payload's first characters
 * @param totalBytes the whole payload's size in UTF-8 bytes
 * @param truncated whether {@code text} is only the start of the payload
 */
public record PayloadPreview(String text, long totalBytes, boolean truncated) {
    /** Validates the components. */
    public PayloadPreview {
        Objects.requireNonNull(text, "text cannot be null");
    }
}

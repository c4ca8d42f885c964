package io.github.deferlock.inspect;

/**
 * Text the ops tools (the {@code deferlock} command-line tool and the dashboard) print or log. Names, payloads,
 * error texts and URLs are attacker input, and URLs may carry a password: {@link #safe} escapes every control
 * and format character (ANSI escapes, CR/LF, bidi overrides) so nothing printed can move the cursor, recolour
 * a terminal, forge a log line or disguise itself; {@link #maskUrl} hides a URL's user-info whether or not the
 * URL parses. Stateless.
 */
public final class OpsText {
    /** What {@link #maskUrl} puts where the user-info (or anything that might be a password) was. */
    public static final String MASK = "***";

    private OpsText() {}

    /**
     * {@code s} with backslash, control and format characters written as Java escapes ({@code \\}, {@code \n},
     * {@code \r}, {@code \t}, {@code \u001B}, …); other text unchanged.
     *
     * @throws NullPointerException when {@code s} is null
     */
    public static String safe(String s) {
        StringBuilder b = new StringBuilder(s.length() + 8);
        s.codePoints().forEach(c -> {
            switch (c) {
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    int type = Character.getType(c);
                    if (Character.isISOControl(c)
                            || type == Character.FORMAT
                            || type == Character.SURROGATE
                            || type == Character.LINE_SEPARATOR
                            || type == Character.PARAGRAPH_SEPARATOR) {
                        b.append(String.format("\\u%04X", c));
                    } else {
                        b.appendCodePoint(c);
                    }
                }
            }
        });
        return b.toString();
    }

    /**
     * {@code url} with its user-info replaced by {@value #MASK}, then {@link #safe}: for messages about a URL
     * that may be malformed. Works on the raw text, so it needs no parse to succeed: everything between
     * {@code scheme://} (or the start) and the <em>last</em> {@code @} is masked, so a password holding
     * {@code @}, {@code /}, {@code #} or an invalid escape is hidden too. Without an {@code @}, an authority
     * that is not {@code host[:digits]} or {@code [IPv6][:digits]} has everything after its first {@code :}
     * masked ({@code redis://user:secret} may be a password without its host).
     *
     * @throws NullPointerException when {@code url} is null
     */
    public static String maskUrl(String url) {
        int schemeEnd = url.indexOf("://");
        int start =
                schemeEnd >= 0 && url.substring(0, schemeEnd).matches("[A-Za-z][A-Za-z0-9+.-]*") ? schemeEnd + 3 : 0;
        String head = url.substring(0, start);
        String rest = url.substring(start);
        int at = rest.lastIndexOf('@');
        if (at >= 0) {
            return safe(head + MASK + rest.substring(at));
        }
        int end = 0;
        while (end < rest.length() && "/?#".indexOf(rest.charAt(end)) < 0) {
            end++;
        }
        String authority = rest.substring(0, end);
        if (authority.matches("[A-Za-z0-9._-]*(:[0-9]*)?") || authority.matches("\\[[0-9A-Fa-f:.]*\\](:[0-9]*)?")) {
            return safe(url);
        }
        int colon = authority.indexOf(':');
        String shown = colon < 0 ? MASK : authority.substring(0, colon + 1) + MASK;
        return safe(head + shown + rest.substring(end));
    }
}

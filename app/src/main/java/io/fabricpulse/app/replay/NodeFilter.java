package io.fabricpulse.app.replay;

import java.util.regex.Pattern;

/**
 * A shell glob on node names ({@code gpu00*}, {@code gpu01?}, {@code gpu0[1-3]*}): {@code *} any
 * run of characters, {@code ?} one, {@code [...]} a class; everything else literal. Records without
 * a node (cluster-wide) always pass, since an incident on a node can depend on them (e.g. a subnet
 * manager failover).
 */
public final class NodeFilter {
  public static final NodeFilter ALL = new NodeFilter("*");

  private final String glob;
  private final Pattern pattern;

  public NodeFilter(String glob) {
    this.glob = glob;
    this.pattern = Pattern.compile(toRegex(glob));
  }

  public boolean accepts(String node) {
    return node == null || pattern.matcher(node).matches();
  }

  public String glob() {
    return glob;
  }

  private static String toRegex(String glob) {
    StringBuilder regex = new StringBuilder();
    boolean inClass = false;
    for (char c : glob.toCharArray()) {
      if (inClass) {
        regex.append(c == '\\' ? "\\\\" : String.valueOf(c));
        inClass = c != ']';
      } else if (c == '*') {
        regex.append(".*");
      } else if (c == '?') {
        regex.append('.');
      } else if (c == '[') {
        regex.append('[');
        inClass = true;
      } else {
        regex.append(Pattern.quote(String.valueOf(c)));
      }
    }
    if (inClass) {
      throw new IllegalArgumentException("'" + glob + "': unclosed [ in the node pattern");
    }
    return regex.toString();
  }

  @Override
  public String toString() {
    return glob;
  }
}

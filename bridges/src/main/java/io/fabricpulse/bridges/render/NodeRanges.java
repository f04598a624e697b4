package io.fabricpulse.bridges.render;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Node names folded into ranges for a digest line: gpu001, gpu002, gpu003 -> gpu001-gpu003. */
public final class NodeRanges {
  private static final Pattern NUMBERED = Pattern.compile("(.*?)(\\d+)");

  private NodeRanges() {}

  /** The ranges, in name order; runs of consecutive numbers of one prefix and width fold. */
  public static List<String> fold(Iterable<String> nodes) {
    TreeSet<String> sorted = new TreeSet<>(NodeRanges::naturalOrder);
    nodes.forEach(sorted::add);
    List<String> ranges = new ArrayList<>();
    String first = null;
    String last = null;
    for (String node : sorted) {
      if (last != null && follows(last, node)) {
        last = node;
        continue;
      }
      if (first != null) {
        ranges.add(first.equals(last) ? first : first + "-" + last);
      }
      first = node;
      last = node;
    }
    if (first != null) {
      ranges.add(first.equals(last) ? first : first + "-" + last);
    }
    return ranges;
  }

  /** gpu9 before gpu10: by prefix, then by the trailing number, then by name. */
  static int naturalOrder(String a, String b) {
    Matcher x = NUMBERED.matcher(a);
    Matcher y = NUMBERED.matcher(b);
    if (x.matches() && y.matches() && x.group(1).equals(y.group(1))) {
      int byNumber =
          new java.math.BigInteger(x.group(2)).compareTo(new java.math.BigInteger(y.group(2)));
      if (byNumber != 0) {
        return byNumber;
      }
    }
    return a.compareTo(b);
  }

  private static boolean follows(String previous, String next) {
    Matcher a = NUMBERED.matcher(previous);
    Matcher b = NUMBERED.matcher(next);
    if (!a.matches() || !b.matches() || !a.group(1).equals(b.group(1))) {
      return false;
    }
    if (a.group(2).length() != b.group(2).length() || a.group(2).length() > 18) {
      return false;
    }
    return Long.parseLong(b.group(2)) == Long.parseLong(a.group(2)) + 1;
  }
}

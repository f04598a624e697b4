package io.fabricpulse.streams.rules;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.fabricpulse.streams.testing.RepoPaths;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Every source key a bundled rule cites ({@code source: "[SONIC-pfcwd][K-pfcstall]"}) is defined in
 * the Sources section of docs/thresholds.md, so a rule's numbers can always be traced to a public
 * reference.
 */
class SourceKeysTest {
  private static final Pattern KEY = Pattern.compile("\\[([A-Za-z0-9-]+)]");
  private static final Pattern DEFINITION =
      Pattern.compile("^- `\\[([A-Za-z0-9-]+)]`", Pattern.MULTILINE);

  @Test
  void everyKeyCitedByABundledRuleIsDefinedInThresholdsMd() throws Exception {
    String doc =
        Files.readString(RepoPaths.root().resolve("docs/thresholds.md"), StandardCharsets.UTF_8);
    String sources = doc.substring(doc.indexOf("\n## Sources"));
    Set<String> defined = new TreeSet<>();
    Matcher definitions = DEFINITION.matcher(sources);
    while (definitions.find()) {
      defined.add(definitions.group(1));
    }
    Set<String> cited = new TreeSet<>();
    for (Rule rule : RuleSet.load(RepoPaths.alertRules()).all()) {
      Matcher keys = KEY.matcher(rule.source());
      while (keys.find()) {
        cited.add(keys.group(1));
      }
    }

    assertFalse(cited.isEmpty(), "the bundled rules cite no source keys");
    Set<String> undefined = new TreeSet<>(cited);
    undefined.removeAll(defined);
    assertEquals(Set.of(), undefined, "cited by alert-rules/*.yaml, not defined in docs");
  }
}

package io.fabricpulse.streams.rules;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * All rules of a directory of rule files ({@code *.yaml}, {@code *.yml}, read in file-name order).
 * Loading is all or nothing: any problem in any file refuses the whole set.
 */
public final class RuleSet {

  private final List<Rule> rules;
  private final Map<String, Rule> byId;

  private RuleSet(List<Rule> rules) {
    this.rules = List.copyOf(rules);
    Map<String, Rule> ids = new LinkedHashMap<>();
    for (Rule r : rules) {
      if (ids.putIfAbsent(r.id(), r) != null) {
        throw new IllegalArgumentException("duplicate rule id " + r.id());
      }
    }
    this.byId = Collections.unmodifiableMap(ids);
  }

  /** A rule set built in code (tests, embedded defaults); ids must be unique. */
  public static RuleSet of(List<Rule> rules) {
    return new RuleSet(rules);
  }

  /**
   * Loads and validates every rule file of {@code dir}.
   *
   * @throws RuleValidationException with every problem found, as {@code file:line: key: problem}
   * @throws IOException when the directory or a file cannot be read
   */
  public static RuleSet load(Path dir) throws IOException, RuleValidationException {
    List<Path> files = new ArrayList<>();
    try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir, "*.{yaml,yml}")) {
      stream.forEach(files::add);
    }
    files.sort((a, b) -> a.getFileName().toString().compareTo(b.getFileName().toString()));
    List<String> problems = new ArrayList<>();
    List<Rule> rules = new ArrayList<>();
    Map<String, String> firstOrigin = new LinkedHashMap<>();
    for (Path file : files) {
      String shown = dir.resolve(file.getFileName()).toString();
      RuleFileParser.Result result = new RuleFileParser(shown).parse(Files.readString(file));
      problems.addAll(result.problems());
      for (RuleFileParser.ParsedRule parsed : result.rules()) {
        String previous = firstOrigin.putIfAbsent(parsed.id(), parsed.idLocation());
        if (previous != null) {
          problems.add(
              parsed.idLocation()
                  + ": id: duplicate rule id \""
                  + parsed.id()
                  + "\", first defined at "
                  + previous);
        } else if (parsed.rule() != null) {
          rules.add(parsed.rule());
        }
      }
    }
    if (!problems.isEmpty()) {
      throw new RuleValidationException(problems);
    }
    return new RuleSet(rules);
  }

  /** Every rule, enabled or not, in load order. */
  public List<Rule> all() {
    return rules;
  }

  /** The enabled rules of {@code detector}, in load order. */
  public List<Rule> enabledFor(Detector detector) {
    return rules.stream().filter(r -> r.enabled() && r.detector() == detector).toList();
  }

  public Optional<Rule> byId(String id) {
    return Optional.ofNullable(byId.get(id));
  }
}

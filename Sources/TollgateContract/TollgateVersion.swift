/// The version of this build of Tollgate: what `tollgate --version` prints, what `Health` answers
/// (`HealthResponse.version`) and what the metrics' `tollgate_build_info` carries. One place, so
/// the three never disagree; CHANGELOG.md lists what each version brought.
public enum TollgateVersion {
  /// Semantic version (`MAJOR.MINOR.PATCH`), bumped with each milestone in CHANGELOG.md.
  public static let current: String = "0.9.0"
}

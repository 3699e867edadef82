extension ProductCatalog {
  /// Every problem in the configuration; empty when it is valid.
  public func validate() -> [ConfigIssue] {
    var issues: [ConfigIssue] = []
    validateApps(into: &issues)
    let entitlementIds = validateEntitlements(into: &issues)
    validateProducts(entitlementIds: entitlementIds, into: &issues)
    validateGroups(into: &issues)
    if gracePolicy.renewalLeewayMs < 0 {
      issues.append(
        ConfigIssue(
          code: .negativeDuration, message: "renewal leeway is \(gracePolicy.renewalLeewayMs) ms",
          path: "gracePolicy.renewalLeewayMs"))
    }
    for (state, level) in accessLevels.levels.sorted(by: { $0.key.rawValue < $1.key.rawValue })
    where level.rawValue.isEmpty {
      issues.append(
        ConfigIssue(code: .emptyIdentifier, message: "empty access level", path: "accessLevels.\(state.rawValue)"))
    }
    return issues
  }

  /// The configuration itself when valid.
  ///
  /// - Throws: `ConfigValidationError` listing every problem.
  public func validated() throws(ConfigValidationError) -> ProductCatalog {
    let issues = validate()
    guard issues.isEmpty else { throw ConfigValidationError(issues: issues) }
    return self
  }

  private func validateApps(into issues: inout [ConfigIssue]) {
    var ids: Set<String> = []
    var storeIds: Set<String> = []
    for (index, app) in apps.enumerated() {
      let path = "apps[\(index)]"
      if app.id.isEmpty {
        issues.append(ConfigIssue(code: .emptyIdentifier, message: "app id is empty", path: "\(path).id"))
      } else if !ids.insert(app.id).inserted {
        issues.append(
          ConfigIssue(code: .duplicateAppId, message: "app id '\(app.id)' is used twice", path: "\(path).id"))
      }
      if app.store == .promotional {
        issues.append(
          ConfigIssue(code: .unsupportedStore, message: "apps cannot belong to 'promotional'", path: "\(path).store"))
        continue
      }
      guard let storeAppId = app.storeAppId, !storeAppId.isEmpty else {
        let field =
          switch app.store {
          case .appStore: "bundleId"
          case .googlePlay: "packageName"
          default: "amazonAppId"
          }
        issues.append(
          ConfigIssue(
            code: .missingStoreAppId, message: "app '\(app.id)' on \(app.store.rawValue) needs \(field)",
            path: "\(path).\(field)"))
        continue
      }
      if !storeIds.insert("\(app.store.rawValue):\(storeAppId)").inserted {
        issues.append(
          ConfigIssue(
            code: .duplicateStoreAppId, message: "\(app.store.rawValue) app '\(storeAppId)' is configured twice",
            path: path))
      }
    }
  }

  private func validateEntitlements(into issues: inout [ConfigIssue]) -> Set<String> {
    var ids: Set<String> = []
    for (index, entitlement) in entitlements.enumerated() {
      let path = "entitlements[\(index)].id"
      if entitlement.id.isEmpty {
        issues.append(ConfigIssue(code: .emptyIdentifier, message: "entitlement id is empty", path: path))
      } else if !ids.insert(entitlement.id).inserted {
        issues.append(
          ConfigIssue(
            code: .duplicateEntitlement, message: "entitlement '\(entitlement.id)' is defined twice", path: path))
      }
    }
    return ids
  }

  private func validateProducts(entitlementIds: Set<String>, into issues: inout [ConfigIssue]) {
    var seen: Set<String> = []
    for (index, product) in products.enumerated() {
      let path = "products[\(index)]"
      if product.productId.isEmpty {
        issues.append(ConfigIssue(code: .emptyIdentifier, message: "product id is empty", path: "\(path).productId"))
      }
      let key = "\(product.store?.rawValue ?? "*"):\(product.productId)"
      if !seen.insert(key).inserted {
        issues.append(
          ConfigIssue(
            code: .duplicateProduct,
            message:
              "product '\(product.productId)' is configured twice for \(product.store?.rawValue ?? "all stores")",
            path: path))
      }
      if product.entitlements.isEmpty {
        issues.append(
          ConfigIssue(
            code: .productWithoutEntitlements, message: "product '\(product.productId)' unlocks nothing",
            path: "\(path).entitlements"))
      }
      for entitlement in product.entitlements where !entitlementIds.contains(entitlement) {
        issues.append(
          ConfigIssue(
            code: .unknownEntitlement,
            message: "product '\(product.productId)' references unknown entitlement '\(entitlement)'",
            path: "\(path).entitlements"))
      }
    }
  }

  private func validateGroups(into issues: inout [ConfigIssue]) {
    var groupIds: Set<String> = []
    // productId -> (group id, store) of the first group that holds it.
    var owners: [String: [(group: String, store: Store?)]] = [:]
    for (index, group) in subscriptionGroups.enumerated() {
      let path = "subscriptionGroups[\(index)]"
      if group.id.isEmpty {
        issues.append(ConfigIssue(code: .emptyIdentifier, message: "group id is empty", path: "\(path).id"))
      } else if !groupIds.insert(group.id).inserted {
        issues.append(
          ConfigIssue(code: .duplicateGroupId, message: "group '\(group.id)' is defined twice", path: "\(path).id"))
      }
      for (memberIndex, member) in group.products.enumerated() {
        let memberPath = "\(path).products[\(memberIndex)]"
        if member.level < 1 {
          issues.append(
            ConfigIssue(
              code: .invalidLevel, message: "level of '\(member.productId)' is \(member.level); levels start at 1",
              path: "\(memberPath).level"))
        }
        let known = products.contains {
          $0.productId == member.productId && ($0.store == nil || group.store == nil || $0.store == group.store)
        }
        if !known {
          issues.append(
            ConfigIssue(
              code: .unknownProduct, message: "group '\(group.id)' lists unconfigured product '\(member.productId)'",
              path: "\(memberPath).productId"))
        }
        let clash = owners[member.productId, default: []].first {
          $0.store == nil || group.store == nil || $0.store == group.store
        }
        if let clash {
          issues.append(
            ConfigIssue(
              code: .productInTwoGroups,
              message: "product '\(member.productId)' is in groups '\(clash.group)' and '\(group.id)'",
              path: "\(memberPath).productId"))
        }
        owners[member.productId, default: []].append((group.id, group.store))
      }
    }
  }
}

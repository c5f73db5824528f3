#if canImport(Security)
    import Foundation
    import Security

    /// The keychain as the ``SecureStore``: generic passwords under one service name.
    public struct KeychainStore: SecureStore {
        public let service: String

        public init(service: String) {
            self.service = service
        }

        private func query(_ key: String) -> [String: Any] {
            [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service, kSecAttrAccount as String: key]
        }

        public func data(for key: String) throws -> Data? {
            var query = query(key)
            query[kSecReturnData as String] = true
            var result: AnyObject?
            let status = SecItemCopyMatching(query as CFDictionary, &result)
            if status == errSecItemNotFound { return nil }
            guard status == errSecSuccess else { throw NSError(domain: NSOSStatusErrorDomain, code: Int(status)) }
            return result as? Data
        }

        public func set(_ data: Data, for key: String) throws {
            try remove(key)
            var query = query(key)
            query[kSecValueData as String] = data
            query[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlock
            let status = SecItemAdd(query as CFDictionary, nil)
            guard status == errSecSuccess else { throw NSError(domain: NSOSStatusErrorDomain, code: Int(status)) }
        }

        public func remove(_ key: String) throws {
            let status = SecItemDelete(query(key) as CFDictionary)
            guard status == errSecSuccess || status == errSecItemNotFound else { throw NSError(domain: NSOSStatusErrorDomain, code: Int(status)) }
        }
    }
#endif

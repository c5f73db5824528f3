import Foundation
import SoarClient
import Supabase

/// supabase-swift's session storage on one of SoarClient's secure stores: the keychain on Apple
/// systems, 0600 files on Linux (where supabase-swift has no default and needs one given).
public struct SecureStoreStorage: AuthLocalStorage {
    let store: any SecureStore

    public init(_ store: any SecureStore) { self.store = store }

    public func store(key: String, value: Data) throws { try store.set(value, for: key) }
    public func retrieve(key: String) throws -> Data? { try store.data(for: key) }
    public func remove(key: String) throws { try store.remove(key) }
}

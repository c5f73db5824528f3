import Foundation
import SoarCore

/// Push templates on SQLite: one row a name, its definition as JSON text.
extension SQLiteStore {
    public func saveTemplate(name: String, definition: String) throws(StoreError) -> Bool {
        let time = Timestamp.postgres(now())
        return try write { connection throws(StoreError) -> Bool in
            let existed = try !connection.statement("SELECT 1 FROM push_templates WHERE name = ?1").rows([.text(name)]).isEmpty
            try connection.statement(
                """
                INSERT INTO push_templates (name, definition, created_at, updated_at) VALUES (?1, ?2, ?3, ?3)
                ON CONFLICT (name) DO UPDATE SET definition = excluded.definition, updated_at = excluded.updated_at
                """
            ).run([.text(name), .text(definition), .text(time)])
            return existed
        }
    }

    public func template(name: String) throws(StoreError) -> String? {
        try read { connection throws(StoreError) in
            try connection.statement("SELECT definition FROM push_templates WHERE name = ?1").rows([.text(name)]).first.flatMap { Self.text($0[0]) }
        }
    }

    public func templates() throws(StoreError) -> [String] {
        try read { connection throws(StoreError) in
            try connection.statement("SELECT definition FROM push_templates ORDER BY name").rows([]).compactMap { Self.text($0[0]) }
        }
    }

    public func deleteTemplate(name: String) throws(StoreError) -> Bool {
        try write { connection throws(StoreError) -> Bool in
            let existed = try !connection.statement("SELECT 1 FROM push_templates WHERE name = ?1").rows([.text(name)]).isEmpty
            try connection.statement("DELETE FROM push_templates WHERE name = ?1").run([.text(name)])
            return existed
        }
    }
}

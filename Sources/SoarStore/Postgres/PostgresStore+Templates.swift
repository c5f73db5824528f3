import Foundation
import SoarCore

/// Push templates on Postgres: one row a name, its definition as JSON text.
extension PostgresStore {
    public func saveTemplate(name: String, definition: String) throws(StoreError) -> Bool {
        let time = Timestamp.postgres(now())
        return try run { connection throws(StoreError) -> Bool in
            // xmax is 0 for a row just inserted, not for one the conflict updated.
            let rows = try connection.query(
                """
                INSERT INTO public.push_templates (name, definition, created_at, updated_at) VALUES ($1, $2, $3, $3)
                ON CONFLICT (name) DO UPDATE SET definition = excluded.definition, updated_at = excluded.updated_at
                RETURNING (xmax <> 0)::text
                """, [name, definition, time])
            return rows.first?.first == "true"
        }
    }

    public func template(name: String) throws(StoreError) -> String? {
        try run { connection throws(StoreError) in
            try connection.query("SELECT definition FROM public.push_templates WHERE name = $1", [name]).first?.first ?? nil
        }
    }

    public func templates() throws(StoreError) -> [String] {
        try run { connection throws(StoreError) in
            try connection.query("SELECT definition FROM public.push_templates ORDER BY name").compactMap { $0.first ?? nil }
        }
    }

    public func deleteTemplate(name: String) throws(StoreError) -> Bool {
        try run { connection throws(StoreError) in
            !(try connection.query("DELETE FROM public.push_templates WHERE name = $1 RETURNING 1", [name]).isEmpty)
        }
    }
}

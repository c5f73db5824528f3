/// What a repository returns instead of throwing: a value, or an ``AppError``.
public enum AppResult<Value: Sendable>: Sendable {
    case success(Value)
    case failure(AppError)

    /// Runs work that may throw and maps any error with ``AppError/map(_:)``.
    public init(catching work: () async throws -> Value) async {
        do {
            self = .success(try await work())
        } catch {
            self = .failure(AppError.map(error))
        }
    }

    public var value: Value? { if case .success(let v) = self { v } else { nil } }
    public var error: AppError? { if case .failure(let e) = self { e } else { nil } }

    public func map<T: Sendable>(_ transform: (Value) throws -> T) -> AppResult<T> {
        switch self {
        case .success(let value):
            do { return .success(try transform(value)) } catch { return .failure(AppError.map(error)) }
        case .failure(let error): return .failure(error)
        }
    }

    public func flatMap<T: Sendable>(_ transform: (Value) -> AppResult<T>) -> AppResult<T> {
        switch self {
        case .success(let value): transform(value)
        case .failure(let error): .failure(error)
        }
    }

    /// The value, or the error thrown: for callers that do want `throws`.
    public func get() throws(AppError) -> Value {
        switch self {
        case .success(let value): value
        case .failure(let error): throw error
        }
    }
}

extension AppResult: Equatable where Value: Equatable {}

import TollgateWorker

/// Every `WorkerStorage` operation is in the topic files (`PostgresWorkerStorage+<Topic>.swift`);
/// the storage conformance suite runs against it (`Tests/TollgatePostgresTests/Conformance`).
extension PostgresWorkerStorage: WorkerStorage {}

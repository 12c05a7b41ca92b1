/** The few parts of the Frictionless JS libraries (no bundled types) that the export-reader tests use. */
declare module 'datapackage' {
  export class Resource {
    readonly name: string;
    readonly tabular: boolean;
    readonly descriptor: { path: string; format?: string; schema: { fields: { name: string; type: string; format?: string }[]; missingValues?: string[] } };
    read(options?: { keyed?: boolean; cast?: boolean }): Promise<Record<string, unknown>[]>;
    rawRead(): Promise<Buffer>;
  }
  export class Package {
    static load(descriptor: string, options?: { basePath?: string; strict?: boolean }): Promise<Package>;
    readonly valid: boolean;
    readonly errors: Error[];
    readonly resources: Resource[];
    readonly resourceNames: string[];
  }
}

declare module 'tableschema' {
  export class Schema {
    static load(descriptor: object, options?: { strict?: boolean }): Promise<Schema>;
    readonly valid: boolean;
    readonly errors: Error[];
    readonly fieldNames: string[];
    castRow(row: unknown[]): unknown[];
  }
}

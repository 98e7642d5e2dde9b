/** A class as tsx compiles any (esbuild's keepNames), left as it is: the control of fast-class.test.ts. */
export class PlainClass {
  readonly made = true;
}

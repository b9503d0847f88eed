/** The files a person picked, as rosterImport.preview and .commit take them: name and bytes in base64. */
export interface EncodedFile {
  name: string;
  base64: string;
}

export async function encodeFiles(files: readonly File[]): Promise<EncodedFile[]> {
  return Promise.all(
    files.map(async (file) => {
      const bytes = new Uint8Array(await file.arrayBuffer());
      let binary = "";
      // In slices: String.fromCharCode takes its arguments on the stack.
      for (let offset = 0; offset < bytes.length; offset += 0x8000) binary += String.fromCharCode(...bytes.subarray(offset, offset + 0x8000));
      return { name: file.name, base64: btoa(binary) };
    }),
  );
}

import { loadOptionalPeer, MissingPeerError } from '../../runtime/core/optional-peer';

describe('loadOptionalPeer', () => {
  it('loads an installed package once and returns the same module', () => {
    const first = loadOptionalPeer<typeof import('multer')>('multer', 'multer()');
    expect(typeof first).toBe('function');
    expect(loadOptionalPeer('multer', 'multer()')).toBe(first);
  });

  it('names a missing package and its install command', () => {
    const load = (): unknown => loadOptionalPeer('fw-no-such-peer', "the 'nowhere' provider");
    expect(load).toThrow(MissingPeerError);
    expect(load).toThrow("the 'nowhere' provider needs the package fw-no-such-peer, which is not installed: run `npm install fw-no-such-peer`");
    try {
      load();
    } catch (error) {
      expect(error).toMatchObject({ code: 'FW_MISSING_PEER', packageName: 'fw-no-such-peer' });
    }
  });
});
